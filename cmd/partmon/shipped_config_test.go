package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// shippedRun is one shipped deployment: its config (file contents, "" for
// none) and the arguments its manifest gives `partmon run`.
type shippedRun struct {
	name   string
	config string
	args   []string
	env    map[string]string
}

// TestCheckConfigPassesShippedConfigs: check-config accepts every shipped
// config with the flags run gets where it is deployed, read fresh from the
// manifests. The files they name exist only there (a pod's secret, a
// systemd credential), so the file checks here record the paths instead
// of opening them; each must be absolute, as a relative one would depend
// on the working directory. Then the same off-host, as in a CI job, with
// the real checks: --syntax-only passes, and without it check-config
// refuses with exit 4 naming each recorded path that is not here.
func TestCheckConfigPassesShippedConfigs(t *testing.T) {
	var checked []string
	savedStat, savedDir, savedPw, savedStatDir := statFile, checkDirWritable, checkPasswordFile, statDir
	restore := func() {
		statFile, checkDirWritable, checkPasswordFile, statDir = savedStat, savedDir, savedPw, savedStatDir
	}
	t.Cleanup(restore)
	stub := func() {
		statFile = func(p string) error { checked = append(checked, p); return nil }
		checkPasswordFile = statFile
		statDir = statFile
		checkDirWritable = func(d string) error { checked = append(checked, d+"/"); return nil }
	}

	k8sArgs, k8sEnv := statefulSetArgs(t)
	composeArgs, composeEnv := composeArgs(t)
	runs := []shippedRun{
		{"deploy/partmon.yml", readShipped(t, "deploy/partmon.yml"), nil, nil},
		{"deploy/partmon-demo.yml", readShipped(t, "deploy/partmon-demo.yml"), nil, nil},
		{"deploy/systemd", readShipped(t, "deploy/systemd/partmon.yml"), systemdArgs(t), nil},
		{"deploy/kubernetes", configMapConfig(t), k8sArgs, k8sEnv},
		{"docker-compose.yml", "", composeArgs, composeEnv},
	}
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			checked = nil
			for k, v := range r.env {
				t.Setenv(k, v)
			}
			args := []string{"check-config"}
			for _, a := range r.args {
				if strings.HasPrefix(a, "--config.file") {
					continue // the shipped file stands in for the deployed path
				}
				args = append(args, a)
			}
			if r.config != "" {
				args = append(args, writeFile(t, "partmon.yml", r.config))
			}
			stub()
			var out, errb bytes.Buffer
			if code := run(args, &out, &errb); code != exitOK {
				t.Fatalf("check-config %v: exit %d\n%s", args[1:], code, errb.String())
			}
			for _, p := range checked {
				if !filepath.IsAbs(p) && r.name != "deploy/partmon-demo.yml" {
					t.Errorf("%s names a relative path %q", r.name, p)
				}
			}
			restore()
			offHost(t, args, checked)
		})
	}
}

// offHost runs check-config args with the real file checks: with
// --syntax-only it passes; without, it fails naming each of paths (the
// files and directories, with a trailing /, the config names) absent here.
func offHost(t *testing.T, args, paths []string) {
	t.Helper()
	var out, errb bytes.Buffer
	syntax := append([]string{"check-config", "--syntax-only"}, args[1:]...)
	if code := run(syntax, &out, &errb); code != exitOK || !strings.Contains(out.String(), "syntax only") {
		t.Errorf("check-config --syntax-only %v off-host: exit %d, want 0\n%s%s", args[1:], code, out.String(), errb.String())
	}
	var missing []string
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			missing = append(missing, strings.TrimSuffix(p, "/"))
		}
	}
	out.Reset()
	errb.Reset()
	code := run(args, &out, &errb)
	if len(missing) == 0 {
		if code != exitOK {
			t.Errorf("check-config %v: exit %d with every file it names here\n%s", args[1:], code, errb.String())
		}
		return
	}
	if code != exitUsage {
		t.Errorf("check-config %v off-host: exit %d, want %d (it names %q, absent here)\n%s", args[1:], code, exitUsage, missing, out.String())
	}
	for _, p := range missing {
		if !strings.Contains(errb.String(), p) {
			t.Errorf("check-config %v off-host does not name %s:\n%s", args[1:], p, errb.String())
		}
	}
}

func readShipped(t *testing.T, rel string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("../..", rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// runArgs are the arguments after "run", or the test fails.
func runArgs(t *testing.T, where string, args []string) []string {
	t.Helper()
	i := slices.Index(args, "run")
	if i < 0 {
		t.Fatalf("%s: no `run` in %q", where, args)
	}
	return args[i+1:]
}

func systemdArgs(t *testing.T) []string {
	for _, l := range strings.Split(readShipped(t, "deploy/systemd/partmon.service"), "\n") {
		if cmd, ok := strings.CutPrefix(l, "ExecStart="); ok {
			return runArgs(t, "partmon.service", strings.Fields(cmd))
		}
	}
	t.Fatal("partmon.service: no ExecStart=")
	return nil
}

// configMapConfig is the partmon.yml the shipped ConfigMap carries.
func configMapConfig(t *testing.T) string {
	var cm struct {
		Data map[string]string `yaml:"data"`
	}
	if err := yaml.Unmarshal([]byte(readShipped(t, "deploy/kubernetes/partmon-configmap.yaml")), &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Data["partmon.yml"] == "" {
		t.Fatal("partmon-configmap.yaml: no data.partmon.yml")
	}
	return cm.Data["partmon.yml"]
}

type container struct {
	Name string   `yaml:"name"`
	Args []string `yaml:"args"`
	Env  []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
}

// statefulSetArgs are the partmon container's args and its plain PARTMON_*
// environment values.
func statefulSetArgs(t *testing.T) ([]string, map[string]string) {
	var ss struct {
		Spec struct {
			Template struct {
				Spec struct {
					Containers []container `yaml:"containers"`
				} `yaml:"spec"`
			} `yaml:"template"`
		} `yaml:"spec"`
	}
	if err := yaml.Unmarshal([]byte(readShipped(t, "deploy/kubernetes/cassandra-statefulset.yaml")), &ss); err != nil {
		t.Fatal(err)
	}
	for _, c := range ss.Spec.Template.Spec.Containers {
		if c.Name == "partmon" {
			env := map[string]string{}
			for _, e := range c.Env {
				if strings.HasPrefix(e.Name, "PARTMON_") && e.Value != "" {
					env[e.Name] = e.Value
				}
			}
			return runArgs(t, "cassandra-statefulset.yaml", c.Args), env
		}
	}
	t.Fatal("cassandra-statefulset.yaml: no partmon container")
	return nil, nil
}

func composeArgs(t *testing.T) ([]string, map[string]string) {
	var dc struct {
		Services map[string]struct {
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal([]byte(readShipped(t, "docker-compose.yml")), &dc); err != nil {
		t.Fatal(err)
	}
	p, ok := dc.Services["partmon"]
	if !ok {
		t.Fatal("docker-compose.yml: no partmon service")
	}
	env := map[string]string{}
	for k, v := range p.Environment {
		if strings.HasPrefix(k, "PARTMON_") {
			env[k] = v
		}
	}
	return runArgs(t, "docker-compose.yml", p.Command), env
}
