// Package deploy holds the tests of the deployment files: docker-compose.yml,
// the Prometheus, Alertmanager and Grafana configs it mounts, the Kubernetes
// manifests, the systemd unit and the Dockerfile. Kubernetes and systemd as
// PID 1 cannot run here (compose runs for real in make compose-test,
// scripts/compose-test.sh), so these tests hold them together: every file they
// reference exists, and ports, paths and names agree. binary_test.go holds
// them to the real partmon binary, agree_test.go the stacks to each other.
// The rules and the Alertmanager config have their own tests beside them
// (deploy/prometheus, deploy/alertmanager).
package deploy

import (
	"bytes"
	"errors"
	"io"
	"net"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/dashboards"
	"github.com/partmon/partmon/tools/testkit"
)

// repoRoot is where the paths the deployment files name are relative to.
var repoRoot = mustRepoRoot()

func mustRepoRoot() string {
	root, err := testkit.RepoRoot()
	if err != nil {
		panic(err)
	}
	return root
}

const (
	// The alerting rules prometheus.yml must load.
	rulesFile = "partmon-alerts.yml"
	// The ports the three daemons listen on by default.
	partmonPort      = "9808"
	prometheusPort   = "9090"
	alertmanagerPort = "9093"
)

type composeFile struct {
	Services map[string]struct {
		Image string `yaml:"image"`
		Build *struct {
			Context    string `yaml:"context"`
			Dockerfile string `yaml:"dockerfile"`
		} `yaml:"build"`
		Command     []string          `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		Volumes     []string          `yaml:"volumes"`
		DependsOn   any               `yaml:"depends_on"`
	} `yaml:"services"`
	Volumes map[string]any `yaml:"volumes"`
}

func readYAML(t *testing.T, file string, v any) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(data, v); err != nil {
		t.Fatalf("parsing %s: %v", file, err)
	}
}

func loadCompose(t *testing.T) composeFile {
	t.Helper()
	var c composeFile
	readYAML(t, "docker-compose.yml", &c)
	for _, s := range []string{"cassandra", "partmon", "prometheus", "alertmanager", "grafana"} {
		if _, ok := c.Services[s]; !ok {
			t.Fatalf("docker-compose.yml has no service %s", s)
		}
	}
	return c
}

// hostPath maps a path inside a compose service's container to the repository
// file bind-mounted there ("" when it is not bind-mounted from the repository).
func (c composeFile) hostPath(service, inContainer string) string {
	best, bestLen := "", -1
	for _, v := range c.Services[service].Volumes {
		parts := strings.Split(v, ":")
		if len(parts) < 2 || !strings.HasPrefix(parts[0], "./") {
			continue
		}
		src, dst := parts[0], parts[1]
		if inContainer == dst || strings.HasPrefix(inContainer, dst+"/") {
			if len(dst) > bestLen {
				best, bestLen = filepath.Join(repoRoot, src, strings.TrimPrefix(inContainer, dst)), len(dst)
			}
		}
	}
	return best
}

// flagValue returns the value of --name=value in args.
func flagValue(args []string, name string) string {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--"+name+"="); ok {
			return v
		}
		if a == "--"+name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

func TestComposeReferencesExistingFiles(t *testing.T) {
	c := loadCompose(t)
	for name, s := range c.Services {
		for _, v := range s.Volumes {
			src, _, _ := strings.Cut(v, ":")
			if !strings.HasPrefix(src, "./") {
				if _, ok := c.Volumes[src]; !ok {
					t.Errorf("service %s mounts volume %s, which is not declared", name, src)
				}
				continue
			}
			if _, err := os.Stat(filepath.Join(repoRoot, src)); err != nil {
				t.Errorf("service %s mounts %s: %v", name, src, err)
			}
		}
		if s.Build != nil {
			if _, err := os.Stat(filepath.Join(repoRoot, s.Build.Context, s.Build.Dockerfile)); err != nil {
				t.Errorf("service %s builds with %s: %v", name, s.Build.Dockerfile, err)
			}
		}
	}
	// Each daemon's config flag points at a file the compose file mounts.
	for service, flag := range map[string]string{"prometheus": "config.file", "alertmanager": "config.file"} {
		p := flagValue(c.Services[service].Command, flag)
		if p == "" {
			t.Errorf("%s: no --%s", service, flag)
			continue
		}
		host := c.hostPath(service, p)
		if host == "" {
			t.Errorf("%s: --%s=%s is not mounted from the repository", service, flag, p)
			continue
		}
		if _, err := os.Stat(host); err != nil {
			t.Errorf("%s: --%s=%s: %v", service, flag, p, err)
		}
	}
}

func TestComposePortsMatchDefaults(t *testing.T) {
	c := loadCompose(t)
	for service, port := range map[string]string{"partmon": partmonPort, "prometheus": prometheusPort, "alertmanager": alertmanagerPort} {
		s := c.Services[service]
		if !slices.Contains(s.Ports, port+":"+port) {
			t.Errorf("%s must publish %s:%s, has %v", service, port, port, s.Ports)
		}
		if l := flagValue(s.Command, "web.listen-address"); l != "" && !strings.HasSuffix(l, ":"+port) {
			t.Errorf("%s listens on %s, want port %s", service, l, port)
		}
	}
	// partmon's own default listen address, from its config defaults.
	if got := partmonDefaultListen(t); got != ":"+partmonPort {
		t.Errorf("partmon's default listen address is %q, the deploy files use :%s", got, partmonPort)
	}
}

var listenDefault = regexp.MustCompile(`ListenAddresses:\s*\[\]string\{"([^"]*)"\}`)

// partmonDefaultListen reads the default of web.listen_addresses from the
// daemon's source (package main cannot be imported).
func partmonDefaultListen(t *testing.T) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "cmd", "partmon", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sources in cmd/partmon: %v", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m := listenDefault.FindSubmatch(data); m != nil {
			return string(m[1])
		}
	}
	t.Fatal("no ListenAddresses default found in cmd/partmon")
	return ""
}

type promConfig struct {
	RuleFiles []string `yaml:"rule_files"`
	Alerting  struct {
		Alertmanagers []struct {
			StaticConfigs []struct {
				Targets []string `yaml:"targets"`
			} `yaml:"static_configs"`
		} `yaml:"alertmanagers"`
	} `yaml:"alerting"`
	ScrapeConfigs []struct {
		JobName       string `yaml:"job_name"`
		HonorLabels   bool   `yaml:"honor_labels"`
		StaticConfigs []struct {
			Targets []string          `yaml:"targets"`
			Labels  map[string]string `yaml:"labels"`
		} `yaml:"static_configs"`
	} `yaml:"scrape_configs"`
}

func TestPrometheusConfigMatchesCompose(t *testing.T) {
	c := loadCompose(t)
	var pc promConfig
	readYAML(t, "deploy/prometheus/prometheus.yml", &pc)

	for _, rf := range pc.RuleFiles {
		if _, err := os.Stat(filepath.Join(repoRoot, "deploy", "prometheus", rf)); err != nil {
			t.Errorf("rule file %s: %v", rf, err)
		}
	}
	if !slices.Contains(pc.RuleFiles, filepath.Base(rulesFile)) {
		t.Errorf("prometheus.yml does not load %s", filepath.Base(rulesFile))
	}

	var am []string
	for _, a := range pc.Alerting.Alertmanagers {
		for _, sc := range a.StaticConfigs {
			am = append(am, sc.Targets...)
		}
	}
	if !slices.Contains(am, "alertmanager:"+alertmanagerPort) {
		t.Errorf("prometheus.yml alerts %v, want alertmanager:%s", am, alertmanagerPort)
	}

	var job *struct {
		JobName       string `yaml:"job_name"`
		HonorLabels   bool   `yaml:"honor_labels"`
		StaticConfigs []struct {
			Targets []string          `yaml:"targets"`
			Labels  map[string]string `yaml:"labels"`
		} `yaml:"static_configs"`
	}
	for i := range pc.ScrapeConfigs {
		if pc.ScrapeConfigs[i].JobName == "partmon" {
			job = &pc.ScrapeConfigs[i]
		}
	}
	if job == nil {
		t.Fatal(`prometheus.yml has no job "partmon" (PartmonTargetDown selects up{job="partmon"})`)
	}
	if !job.HonorLabels {
		t.Error("the partmon job needs honor_labels: true, or partmon's cluster label becomes exported_cluster")
	}
	found := false
	for _, sc := range job.StaticConfigs {
		for _, target := range sc.Targets {
			host, port, err := net.SplitHostPort(target)
			if err != nil {
				t.Errorf("target %s: %v", target, err)
				continue
			}
			if port != partmonPort {
				t.Errorf("partmon target %s is not on port %s", target, partmonPort)
			}
			if _, ok := c.Services[host]; ok {
				found = true
				if want := c.Services["cassandra"].Environment["CASSANDRA_CLUSTER_NAME"]; sc.Labels["cluster"] != want {
					t.Errorf("target %s has cluster label %q, the compose cluster is %q", target, sc.Labels["cluster"], want)
				}
			}
		}
	}
	if !found {
		t.Error("no partmon target in prometheus.yml is a docker-compose service")
	}
}

func TestGrafanaProvisioningMatchesCompose(t *testing.T) {
	c := loadCompose(t)
	var ds struct {
		Datasources []struct {
			Type string `yaml:"type"`
			URL  string `yaml:"url"`
		} `yaml:"datasources"`
	}
	readYAML(t, "deploy/grafana/provisioning/datasources/partmon.yaml", &ds)
	urls := map[string]string{}
	for _, d := range ds.Datasources {
		urls[d.Type] = d.URL
	}
	if urls["prometheus"] != "http://prometheus:"+prometheusPort {
		t.Errorf("Prometheus data source URL %q, want http://prometheus:%s", urls["prometheus"], prometheusPort)
	}
	if urls["alertmanager"] != "http://alertmanager:"+alertmanagerPort {
		t.Errorf("Alertmanager data source URL %q, want http://alertmanager:%s", urls["alertmanager"], alertmanagerPort)
	}

	var dp struct {
		Providers []struct {
			Options struct {
				Path string `yaml:"path"`
			} `yaml:"options"`
		} `yaml:"providers"`
	}
	readYAML(t, "deploy/grafana/provisioning/dashboards/partmon.yaml", &dp)
	if len(dp.Providers) == 0 {
		t.Fatal("no dashboard provider")
	}
	// The provisioning directory itself must be what Grafana reads.
	if c.hostPath("grafana", "/etc/grafana/provisioning/dashboards/partmon.yaml") == "" {
		t.Error("deploy/grafana/provisioning is not mounted at /etc/grafana/provisioning")
	}
	host := c.hostPath("grafana", dp.Providers[0].Options.Path)
	if host == "" {
		t.Fatalf("the dashboard provider reads %s, which is not mounted from the repository", dp.Providers[0].Options.Path)
	}
	boards, err := dashboards.Load(filepath.Join(repoRoot, "dashboards"))
	if err != nil || len(boards) == 0 {
		t.Fatalf("reading the dashboards: %d, %v", len(boards), err)
	}
	for _, d := range boards {
		if _, err := os.Stat(filepath.Join(host, d.File)); err != nil {
			t.Errorf("Grafana would not find %s: %v", d.File, err)
		}
	}
	home := c.Services["grafana"].Environment["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"]
	if h := c.hostPath("grafana", home); home != "" && h == "" {
		t.Errorf("home dashboard %s is not mounted", home)
	} else if _, err := os.Stat(h); home != "" && err != nil {
		t.Errorf("home dashboard %s: %v", home, err)
	}
}

func TestDockerfile(t *testing.T) {
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(repoRoot, "deploy", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	froms := regexp.MustCompile(`(?m)^FROM\s+(\S+)`)
	// deploy/Dockerfile pulls nothing and runs nothing: it builds with no
	// registry and with the classic builder (make compose-test builds it so).
	offline := read("Dockerfile")
	for _, f := range froms.FindAllStringSubmatch(offline, -1) {
		if f[1] != "scratch" {
			t.Errorf("deploy/Dockerfile: FROM %s needs a registry; want scratch only", f[1])
		}
	}
	if regexp.MustCompile(`(?m)^(RUN|ARG)\b`).MatchString(offline) || strings.Contains(offline, "--from=") {
		t.Error("deploy/Dockerfile: a RUN, ARG or --from= (a build stage): the classic builder runs every stage, and one needs an image")
	}
	for _, want := range []string{"COPY bin/partmon ", "USER 65534", "EXPOSE " + partmonPort, "make build"} {
		if !strings.Contains(offline, want) {
			t.Errorf("deploy/Dockerfile lacks %q", want)
		}
	}
	makefile := read("../Makefile")
	if !regexp.MustCompile(`(?m)^build:\n\tCGO_ENABLED=0 .* -o bin/partmon ./cmd/partmon`).MatchString(makefile) {
		t.Error("make build must write a static bin/partmon (CGO_ENABLED=0): deploy/Dockerfile copies it onto scratch, which has no libc")
	}
	build := read("Dockerfile.build")
	stages := froms.FindAllStringSubmatch(build, -1)
	if len(stages) < 2 || stages[len(stages)-1][1] != "scratch" {
		t.Errorf("deploy/Dockerfile.build: want a build stage and a final scratch stage, have %v", stages)
	}
	for _, want := range []string{"CGO_ENABLED=0", "USER 65534", "EXPOSE " + partmonPort, "./cmd/partmon"} {
		if !strings.Contains(build, want) {
			t.Errorf("deploy/Dockerfile.build lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(repoRoot, "cmd", "partmon")); err != nil {
		t.Errorf("the Dockerfiles build ./cmd/partmon: %v", err)
	}
}

// partmonConfigFile mirrors the top level of partmon.yml; the sections
// owned by importable packages are decoded into their real types, so unknown
// keys there are errors.
type partmonConfigFile struct {
	Cluster    string              `yaml:"cluster"`
	Collector  collector.Config    `yaml:"collector"`
	Thresholds analyzer.Thresholds `yaml:"thresholds"`
	Analysis   map[string]any      `yaml:"analysis"`
	Exporter   map[string]any      `yaml:"exporter"`
	Web        struct {
		ListenAddresses []string `yaml:"listen_addresses"`
		ConfigFile      string   `yaml:"config_file"`
	} `yaml:"web"`
	Alertmanager map[string]any `yaml:"alertmanager"`
	State        struct {
		File string `yaml:"file"`
	} `yaml:"state"`
	Log map[string]any `yaml:"log"`
}

func parsePartmonConfig(t *testing.T, name string, data []byte) partmonConfigFile {
	t.Helper()
	cfg := partmonConfigFile{Thresholds: analyzer.DefaultThresholds()} // Validate applies collector defaults
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("%s: %v", name, err)
	}
	return cfg
}

type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
	Spec       yaml.Node         `yaml:"spec"`
}

type container struct {
	Name  string   `yaml:"name"`
	Image string   `yaml:"image"`
	Args  []string `yaml:"args"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
	LivenessProbe  *probe `yaml:"livenessProbe"`
	StartupProbe   *probe `yaml:"startupProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		RunAsUser    int  `yaml:"runAsUser"`
		RunAsNonRoot bool `yaml:"runAsNonRoot"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type probe struct {
	HTTPGet *struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
	Exec      any `yaml:"exec"`
	TCPSocket any `yaml:"tcpSocket"`
	GRPC      any `yaml:"grpc"`
}

type podSpecTemplate struct {
	ServiceName string `yaml:"serviceName"`
	Template    struct {
		Metadata struct {
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec struct {
			Containers []container `yaml:"containers"`
			Volumes    []struct {
				Name      string `yaml:"name"`
				ConfigMap *struct {
					Name string `yaml:"name"`
				} `yaml:"configMap"`
				Secret *struct {
					SecretName string `yaml:"secretName"`
				} `yaml:"secret"`
			} `yaml:"volumes"`
		} `yaml:"spec"`
	} `yaml:"template"`
}

func loadK8s(t *testing.T) map[string]k8sObject {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "deploy", "kubernetes", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests in deploy/kubernetes: %v", err)
	}
	objs := map[string]k8sObject{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var o k8sObject
			err := dec.Decode(&o)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			objs[o.Kind+"/"+o.Metadata.Name] = o
		}
	}
	return objs
}

func TestKubernetesSidecar(t *testing.T) {
	objs := loadK8s(t)
	sts, ok := objs["StatefulSet/cassandra"]
	if !ok {
		t.Fatal("no StatefulSet cassandra")
	}
	var spec podSpecTemplate
	if err := sts.Spec.Decode(&spec); err != nil {
		t.Fatal(err)
	}
	var pm *container
	for i, c := range spec.Template.Spec.Containers {
		if c.Name == "partmon" {
			pm = &spec.Template.Spec.Containers[i]
		}
	}
	if pm == nil || len(spec.Template.Spec.Containers) < 2 {
		t.Fatal("the StatefulSet needs a database container and a partmon sidecar")
	}
	if flagValue(pm.Args, "mode") != "sidecar" || flagValue(pm.Args, "hosts") != "127.0.0.1" {
		t.Errorf("partmon args %v: want --mode=sidecar --hosts=127.0.0.1 (its own node)", pm.Args)
	}
	var metricsPort string
	for _, p := range pm.Ports {
		if p.ContainerPort == 9808 {
			metricsPort = p.Name
		}
	}
	if metricsPort == "" {
		t.Fatalf("partmon exposes no container port %s", partmonPort)
	}
	// A sidecar's readiness is its pod's: no probe of partmon may depend on the
	// database (probes_test.go holds these paths to the binary).
	for kind, p := range map[string]*probe{"readiness": pm.ReadinessProbe, "liveness": pm.LivenessProbe, "startup": pm.StartupProbe} {
		if p == nil {
			continue
		}
		if p.HTTPGet == nil || !slices.Contains(databaseIndependentPaths, p.HTTPGet.Path) || p.HTTPGet.Port != metricsPort {
			t.Errorf("partmon %s probe must be GET one of %v on port %s (paths that never depend on the database)", kind, databaseIndependentPaths, metricsPort)
		}
	}
	if pm.LivenessProbe == nil {
		t.Error("partmon needs a liveness probe on /healthz")
	}
	for _, r := range []string{"cpu", "memory"} {
		if pm.Resources.Limits[r] == "" || pm.Resources.Requests[r] == "" {
			t.Errorf("partmon needs a %s request and limit", r)
		}
	}
	if !pm.SecurityContext.RunAsNonRoot || pm.SecurityContext.RunAsUser != 65534 {
		t.Errorf("partmon must run as non-root uid 65534")
	}

	// Config file: the ConfigMap key the --config.file arg names, valid with the args.
	mounts := map[string]string{} // mount path → volume name
	for _, m := range pm.VolumeMounts {
		mounts[m.MountPath] = m.Name
	}
	volumeOf := func(p string) (string, string) { // volume, path inside it
		for dir, vol := range mounts {
			if rest, ok := strings.CutPrefix(p, dir+"/"); ok {
				return vol, rest
			}
		}
		return "", ""
	}
	source := func(volume string) (kind, name string) {
		for _, v := range spec.Template.Spec.Volumes {
			if v.Name == volume && v.ConfigMap != nil {
				return "ConfigMap", v.ConfigMap.Name
			}
			if v.Name == volume && v.Secret != nil {
				return "Secret", v.Secret.SecretName
			}
		}
		return "", ""
	}
	cfgVol, cfgKey := volumeOf(flagValue(pm.Args, "config.file"))
	kind, name := source(cfgVol)
	cm, ok := objs[kind+"/"+name]
	if kind != "ConfigMap" || !ok || cm.Data[cfgKey] == "" {
		t.Fatalf("--config.file=%s is not a key of a ConfigMap in the manifests", flagValue(pm.Args, "config.file"))
	}
	cfg := parsePartmonConfig(t, "ConfigMap "+name, []byte(cm.Data[cfgKey]))
	cfg.Collector.Mode = flagValue(pm.Args, "mode")
	cfg.Collector.Hosts = []string{flagValue(pm.Args, "hosts")}
	if err := cfg.Collector.Validate(); err != nil {
		t.Errorf("ConfigMap %s with the container args: %v", name, err)
	}
	if len(cfg.Web.ListenAddresses) > 0 && !slices.ContainsFunc(cfg.Web.ListenAddresses, func(a string) bool {
		return strings.HasSuffix(a, ":"+partmonPort)
	}) {
		t.Errorf("ConfigMap %s listens on %v, the container port is %s", name, cfg.Web.ListenAddresses, partmonPort)
	}

	// The password is a Secret mounted as a file, at password_file.
	secVol, secKey := volumeOf(cfg.Collector.PasswordFile)
	kind, name = source(secVol)
	sec, ok := objs[kind+"/"+name]
	if kind != "Secret" || !ok || (sec.StringData[secKey] == "" && sec.Data[secKey] == "") {
		t.Errorf("password_file %s is not a key of a Secret mounted in the partmon container", cfg.Collector.PasswordFile)
	}
	if cfg.Collector.Password != "" {
		t.Error("the ConfigMap must not hold the password itself")
	}
	if cfg.State.File != "" {
		if vol, _ := volumeOf(cfg.State.File); vol == "" {
			t.Errorf("state.file %s is on the read-only root filesystem", cfg.State.File)
		}
	}

	// The Service and the PodMonitor find the pods and the port.
	svc, ok := objs["Service/"+spec.ServiceName]
	if !ok {
		t.Fatalf("no Service %s for the StatefulSet", spec.ServiceName)
	}
	var svcSpec struct {
		Selector map[string]string `yaml:"selector"`
		Ports    []struct {
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
	}
	if err := svc.Spec.Decode(&svcSpec); err != nil {
		t.Fatal(err)
	}
	labels := spec.Template.Metadata.Labels
	for k, v := range svcSpec.Selector {
		if labels[k] != v {
			t.Errorf("Service selector %s=%s does not match the pods", k, v)
		}
	}
	pmon, ok := objs["PodMonitor/partmon"]
	if !ok {
		t.Fatal("no PodMonitor partmon")
	}
	var pmSpec struct {
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		Endpoints []struct {
			Port        string `yaml:"port"`
			HonorLabels bool   `yaml:"honorLabels"`
			Relabelings []struct {
				SourceLabels []string `yaml:"sourceLabels"`
				TargetLabel  string   `yaml:"targetLabel"`
				Replacement  string   `yaml:"replacement"`
			} `yaml:"relabelings"`
		} `yaml:"podMetricsEndpoints"`
	}
	if err := pmon.Spec.Decode(&pmSpec); err != nil {
		t.Fatal(err)
	}
	for k, v := range pmSpec.Selector.MatchLabels {
		if labels[k] != v {
			t.Errorf("PodMonitor selector %s=%s does not match the pods", k, v)
		}
	}
	if len(pmSpec.Endpoints) != 1 || pmSpec.Endpoints[0].Port != metricsPort || !pmSpec.Endpoints[0].HonorLabels {
		t.Fatalf("PodMonitor must scrape port %s with honorLabels", metricsPort)
	}
	var job, cluster bool
	for _, r := range pmSpec.Endpoints[0].Relabelings {
		if r.TargetLabel == "job" && r.Replacement == "partmon" {
			job = true
		}
		if r.TargetLabel == "cluster" && len(r.SourceLabels) == 1 {
			label := strings.TrimPrefix(r.SourceLabels[0], "__meta_kubernetes_pod_label_")
			for k := range labels {
				if regexp.MustCompile(`[^a-zA-Z0-9_]`).ReplaceAllString(k, "_") == label {
					cluster = true
				}
			}
		}
	}
	if !job {
		t.Error(`PodMonitor must set job="partmon" (PartmonTargetDown selects it)`)
	}
	if !cluster {
		t.Error("PodMonitor must fill the cluster label from a pod label the StatefulSet sets")
	}
}

func TestSystemdUnit(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "systemd", "partmon.service"))
	if err != nil {
		t.Fatal(err)
	}
	directives := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			directives[k] = append(directives[k], v)
		}
	}
	for k, want := range map[string]string{
		"DynamicUser": "yes", "NoNewPrivileges": "yes", "ProtectSystem": "strict", "ProtectHome": "yes",
		"PrivateTmp": "yes", "PrivateDevices": "yes", "CapabilityBoundingSet": "", "RestrictSUIDSGID": "yes",
	} {
		if !slices.Contains(directives[k], want) {
			t.Errorf("partmon.service: want %s=%s, have %v", k, want, directives[k])
		}
	}
	exec := strings.Fields(strings.Join(directives["ExecStart"], " "))
	cfgPath := flagValue(exec, "config.file")
	if cfgPath != "/etc/partmon/partmon.yml" {
		t.Fatalf("ExecStart reads %q, the documented install path is /etc/partmon/partmon.yml", cfgPath)
	}
	example, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "systemd", "partmon.yml"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := parsePartmonConfig(t, "deploy/systemd/partmon.yml", example)
	if err := cfg.Collector.Validate(); err != nil {
		t.Errorf("deploy/systemd/partmon.yml: %v", err)
	}
	// The password file is the systemd credential, the state in StateDirectory.
	var creds []string
	for _, c := range directives["LoadCredential"] {
		name, _, _ := strings.Cut(c, ":")
		creds = append(creds, "/run/credentials/partmon.service/"+name)
	}
	if !slices.Contains(creds, cfg.Collector.PasswordFile) {
		t.Errorf("password_file %s is none of the unit's credentials %v", cfg.Collector.PasswordFile, creds)
	}
	if dir := path.Dir(cfg.State.File); cfg.State.File != "" && !slices.Contains(directives["StateDirectory"], strings.TrimPrefix(dir, "/var/lib/")) {
		t.Errorf("state.file %s is outside StateDirectory %v (ProtectSystem=strict makes the rest read-only)", cfg.State.File, directives["StateDirectory"])
	}
	for _, a := range cfg.Web.ListenAddresses {
		if !strings.HasSuffix(a, ":"+partmonPort) {
			t.Errorf("deploy/systemd/partmon.yml listens on %s, want port %s", a, partmonPort)
		}
	}
}
