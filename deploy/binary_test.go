package deploy

// Holds the deployment files to the real partmon binary: every command-line
// flag they pass exists. (That every shipped config passes check-config with
// the flags run gets is cmd/partmon's TestCheckConfigPassesShippedConfigs:
// check-config opens the files a config names, which exist only on the
// deployed host.) No cluster needed: they run with the unit tests (the
// binary is built once, from go's build cache).

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/tools/testkit"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
	buildDir  string
)

// buildPartmon builds the daemon once per test binary.
func buildPartmon(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "partmon-deploy-test-")
		if buildErr == nil {
			builtBin, buildErr = testkit.BuildPartmon(context.Background(), buildDir, "partmon", false)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir) // a temporary directory; the tests' result stands either way
	}
	os.Exit(code)
}

var helpFlag = regexp.MustCompile(`--(?:\[no-\])?([a-z][a-z0-9.-]*)`)

// runFlags lists the flags `partmon run --help` documents.
func runFlags(t *testing.T, bin string) map[string]bool {
	t.Helper()
	out, _ := exec.Command(bin, "run", "--help").CombinedOutput() // help may exit non-zero
	flags := map[string]bool{}
	for _, m := range helpFlag.FindAllStringSubmatch(string(out), -1) {
		flags[m[1]] = true
	}
	if !flags["config.file"] || !flags["web.listen-address"] {
		t.Fatalf("could not read partmon's flags from its help:\n%s", out)
	}
	return flags
}

// deployArgs are the partmon command lines of the deployment files.
func deployArgs(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	out["docker-compose.yml"] = loadCompose(t).Services["partmon"].Command

	objs := loadK8s(t)
	var spec podSpecTemplate
	sts := objs["StatefulSet/cassandra"]
	if err := sts.Spec.Decode(&spec); err != nil {
		t.Fatal(err)
	}
	for _, c := range spec.Template.Spec.Containers {
		if c.Name == "partmon" {
			out["deploy/kubernetes/cassandra-statefulset.yaml"] = c.Args
		}
	}

	cassdc, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "kubernetes", "cass-operator", "cassandradatacenter.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(cassdc, &doc); err != nil {
		t.Fatal(err)
	}
	walkContainers(&doc, func(c container) { out["deploy/kubernetes/cass-operator/cassandradatacenter.yaml"] = c.Args })

	unit, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "systemd", "partmon.service"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(unit), "\n") {
		if rest, ok := strings.CutPrefix(line, "ExecStart="); ok {
			out["deploy/systemd/partmon.service"] = strings.Fields(rest)[1:]
		}
	}
	for f, args := range out {
		if len(args) == 0 {
			t.Errorf("%s: no partmon arguments found", f)
		}
	}
	return out
}

func TestDeployFilesUseRealFlags(t *testing.T) {
	bin := buildPartmon(t)
	flags := runFlags(t, bin)
	for file, args := range deployArgs(t) {
		for i, a := range args {
			if !strings.HasPrefix(a, "--") {
				if i == 0 && a == "run" {
					continue
				}
				if i > 0 && strings.HasPrefix(args[i-1], "--") && !strings.Contains(args[i-1], "=") {
					continue // the value of "--flag value"
				}
				t.Errorf("%s: unexpected argument %q (want the run command and flags)", file, a)
				continue
			}
			name, _, _ := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			if !flags[name] {
				t.Errorf("%s: partmon run has no flag --%s", file, name)
			}
		}
	}
}
