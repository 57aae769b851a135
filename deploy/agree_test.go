package deploy

// The deployment stacks (compose, systemd, Kubernetes, README's examples)
// against each other and the binary: every stack pushes partmon's key-level
// alerts and loads the recording rules, keeps partmon's state, publishes no
// database port, and runs the image deploy/Dockerfile builds.

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// databasePorts are Cassandra's CQL, storage, TLS storage and JMX ports.
var databasePorts = []string{"9042", "9142", "7000", "7001", "7199"}

func TestComposeStackIsComplete(t *testing.T) {
	c := loadCompose(t)
	for name, s := range c.Services {
		for _, p := range s.Ports {
			parts := strings.Split(p, ":")
			if slices.Contains(databasePorts, strings.Split(parts[len(parts)-1], "/")[0]) {
				t.Errorf("service %s publishes %s: a database port is not published by default (the file's header says how)", name, p)
			}
		}
	}
	pm := c.Services["partmon"]
	am := flagValue(pm.Command, "alertmanager.url")
	if am != "http://alertmanager:"+alertmanagerPort {
		t.Errorf("partmon pushes its key-level alerts to %q, want http://alertmanager:%s", am, alertmanagerPort)
	}
	state := flagValue(pm.Command, "state.file")
	if state == "" || !onNamedVolume(pm.Volumes, c.Volumes, state) {
		t.Errorf("partmon's --state.file=%q is not on a named volume: the history goes with the container", state)
	}
	var pc struct {
		RuleFiles []string `yaml:"rule_files"`
	}
	readYAML(t, "deploy/prometheus/prometheus.yml", &pc)
	for _, rf := range []string{"partmon-alerts.yml", "partmon-recording.yml"} {
		if !slices.Contains(pc.RuleFiles, rf) {
			t.Errorf("deploy/prometheus/prometheus.yml (compose's Prometheus) does not load %s", rf)
		}
	}
}

// onNamedVolume: file is under a mount of a declared named volume.
func onNamedVolume(mounts []string, declared map[string]any, file string) bool {
	for _, m := range mounts {
		src, dst, _ := strings.Cut(m, ":")
		dst, _, _ = strings.Cut(dst, ":")
		if _, ok := declared[src]; ok && strings.HasPrefix(file, strings.TrimSuffix(dst, "/")+"/") {
			return true
		}
	}
	return false
}

// TestEveryStackPushesAlerts: the shipped partmon configs name an Alertmanager.
func TestEveryStackPushesAlerts(t *testing.T) {
	configs := map[string][]byte{}
	for _, f := range []string{"deploy/systemd/partmon.yml", "deploy/partmon.yml"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		configs[f] = data
	}
	configs["ConfigMap partmon-config"] = []byte(loadK8s(t)["ConfigMap/partmon-config"].Data["partmon.yml"])
	for name, data := range configs {
		cfg := parsePartmonConfig(t, name, data)
		urls, _ := cfg.Alertmanager["urls"].([]any)
		if len(urls) == 0 {
			t.Errorf("%s: no alertmanager.urls: partmon's key-level alerts are never pushed", name)
		}
	}
}

// TestPasswordFilesAreReadable: README's config example and deploy/partmon.yml
// install under the systemd unit, whose DynamicUser reads only its credentials.
func TestPasswordFilesAreReadable(t *testing.T) {
	unit, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "systemd", "partmon.service"))
	if err != nil {
		t.Fatal(err)
	}
	var creds []string
	for _, m := range regexp.MustCompile(`(?m)^LoadCredential=([^:]+):`).FindAllStringSubmatch(string(unit), -1) {
		creds = append(creds, "/run/credentials/partmon.service/"+m[1])
	}
	pw := regexp.MustCompile(`(?m)^\s*password_file:\s*(\S+)`)
	found := 0
	for _, f := range []string{"README.md", "deploy/partmon.yml"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range pw.FindAllStringSubmatch(string(data), -1) {
			found++
			if !slices.Contains(creds, m[1]) {
				t.Errorf("%s: password_file %s: the unit's DynamicUser cannot read it; its credentials are %v", f, m[1], creds)
			}
		}
	}
	if found < 2 {
		t.Errorf("found %d password_file lines in README.md and deploy/partmon.yml, want one in each", found)
	}
}

// TestDockerIgnoreCoversClusters: the test clusters' data (.cluster, .cluster-NAME)
// never goes into a build context, for either builder.
func TestDockerIgnoreCoversClusters(t *testing.T) {
	for _, f := range []string{".dockerignore"} {
		file, err := os.Open(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		var patterns []string
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
				patterns = append(patterns, l)
			}
		}
		file.Close()
		for _, dir := range []string{".cluster", ".cluster-deploy", ".git", "test-artifacts"} {
			if !ignored(patterns, dir) {
				t.Errorf("%s does not keep %s out of the build context", f, dir)
			}
		}
		if ignored(patterns, "bin/partmon") || ignored(patterns, "go.mod") {
			t.Errorf("%s leaves out what the builds need (bin/partmon for deploy/Dockerfile, go.mod for deploy/Dockerfile.build)", f)
		}
	}
}

// ignored applies .dockerignore patterns the way Docker does: the last
// matching pattern wins, "!" re-includes.
func ignored(patterns []string, p string) bool {
	out := false
	for _, pat := range patterns {
		neg := strings.HasPrefix(pat, "!")
		pat = strings.TrimPrefix(pat, "!")
		if ok, _ := filepath.Match(pat, p); ok {
			out = !neg
		}
	}
	return out
}

var dockerBuildTag = regexp.MustCompile(`docker build -f deploy/Dockerfile (?:[^\n]*?)-t (\S+) \.`)

// TestImagesAreBuiltHere: compose and every manifest run the image README's
// docker build command tags, not one that no file here builds.
func TestImagesAreBuiltHere(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := dockerBuildTag.FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no `docker build -f deploy/Dockerfile ... -t IMAGE .`")
	}
	want := string(m[1])
	images := map[string]string{"docker-compose.yml": loadCompose(t).Services["partmon"].Image}
	for _, f := range []string{"deploy/kubernetes/cassandra-statefulset.yaml", "deploy/kubernetes/cass-operator/cassandradatacenter.yaml"} {
		data, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range regexp.MustCompile(`(?m)^\s*image:\s*(\S*partmon\S*)`).FindAllStringSubmatch(string(data), -1) {
			images[f] = im[1]
		}
	}
	for f, im := range images {
		if im != want {
			t.Errorf("%s runs image %q; README's docker build tags %q", f, im, want)
		}
	}
	if len(images) != 3 {
		t.Errorf("found partmon images in %d files, want 3: %v", len(images), images)
	}
}

// TestComposeOverrideOnlyMovesAddresses: make compose-test runs
// docker-compose.yml with deploy/compose/hostnet.yml, whose commands must be
// compose's own but for listen addresses (and Alertmanager's gossip, off), or
// the test would run another stack than the one shipped.
func TestComposeOverrideOnlyMovesAddresses(t *testing.T) {
	base := loadCompose(t)
	var over composeFile
	readYAML(t, "deploy/compose/hostnet.yml", &over)
	moved := []string{"web.listen-address", "cluster.listen-address"}
	strip := func(args []string) []string {
		var out []string
		for _, a := range args {
			name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			if !slices.Contains(moved, name) {
				out = append(out, a)
			}
		}
		return out
	}
	for name, s := range over.Services {
		b, ok := base.Services[name]
		if !ok {
			t.Errorf("hostnet.yml overrides service %s, which docker-compose.yml does not have", name)
			continue
		}
		if s.Command != nil && !slices.Equal(strip(s.Command), strip(b.Command)) {
			t.Errorf("hostnet.yml's %s command %v differs from docker-compose.yml's %v beyond listen addresses", name, s.Command, b.Command)
		}
		if name == "partmon" && s.Image != "" {
			t.Errorf("hostnet.yml must run compose's own partmon image, not %s", s.Image)
		}
	}
	for name := range base.Services {
		if _, ok := over.Services[name]; !ok && name != "grafana" {
			t.Errorf("hostnet.yml leaves service %s off the host network", name)
		}
	}
}
