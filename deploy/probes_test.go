package deploy

// A sidecar's readiness is its pod's: a pod is Ready only when every container
// is, and a StatefulSet with OrderedReady starts pod N+1 only once pod N is
// Ready. So no probe of a partmon container may depend on the database. These
// tests find every partmon container of every manifest under deploy/kubernetes
// (the StatefulSet, the cass-operator example) and hold each of its probes to
// the real binary: started with no database it can reach, each probed path
// must answer 200.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// databaseIndependentPaths are the health paths web/server.go answers from
// the process alone (/readyz/cycle, which waits for a first collection, is not one).
var databaseIndependentPaths = []string{"/healthz", "/readyz"}

// manifestProbe is one probe of a partmon container in a manifest.
type manifestProbe struct {
	where string
	p     probe
}

// partmonProbes walks every YAML document under deploy/kubernetes for
// container lists ("containers", "initContainers") holding a container named
// partmon, wherever they are nested (a pod template, a CRD's podTemplateSpec).
func partmonProbes(t *testing.T) []manifestProbe {
	t.Helper()
	var files []string
	err := filepath.WalkDir(filepath.Join(repoRoot, "deploy", "kubernetes"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".yaml") && !strings.Contains(p, "testdata") {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []manifestProbe
	containers := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(data))
		for {
			var doc yaml.Node
			if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			rel, _ := filepath.Rel(repoRoot, f)
			walkContainers(&doc, func(c container) {
				containers++
				for kind, p := range map[string]*probe{"readinessProbe": c.ReadinessProbe, "livenessProbe": c.LivenessProbe, "startupProbe": c.StartupProbe} {
					if p != nil {
						out = append(out, manifestProbe{where: rel + " " + kind, p: *p})
					}
				}
			})
		}
	}
	if containers < 2 {
		t.Fatalf("found %d partmon containers under deploy/kubernetes, want the StatefulSet's and the cass-operator example's", containers)
	}
	return out
}

func walkContainers(n *yaml.Node, found func(container)) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if (k.Value == "containers" || k.Value == "initContainers") && v.Kind == yaml.SequenceNode {
				for _, item := range v.Content {
					var c container
					if item.Decode(&c) == nil && c.Name == "partmon" {
						found(c)
					}
				}
			}
		}
	}
	for _, c := range n.Content {
		walkContainers(c, found)
	}
}

func TestPartmonProbesNeverDependOnTheDatabase(t *testing.T) {
	probes := partmonProbes(t)
	if len(probes) == 0 {
		t.Fatal("no probe of a partmon container: liveness on /healthz restarts a hung one")
	}
	for _, mp := range probes {
		if mp.p.HTTPGet == nil {
			t.Errorf("%s: want an httpGet probe on one of %v (an exec or tcp probe says nothing of partmon serving)", mp.where, databaseIndependentPaths)
			continue
		}
		if !slices.Contains(databaseIndependentPaths, mp.p.HTTPGet.Path) {
			t.Errorf("%s: GET %s; a partmon probe may only use %v, which never depend on the database", mp.where, mp.p.HTTPGet.Path, databaseIndependentPaths)
		}
	}
}

// TestHealthPathsAnswerWithoutDatabase holds databaseIndependentPaths to the
// binary: partmon pointed at an address where nothing listens answers 200 on
// each, while /readyz/cycle (which waits for a collection) answers 503.
func TestHealthPathsAnswerWithoutDatabase(t *testing.T) {
	bin := buildPartmon(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "run", "--mode=cluster", "--hosts=127.0.0.1:1",
		"--web.listen-address="+addr, "--state.file="+filepath.Join(t.TempDir(), "state.json"))
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	get := func(path string) (int, error) {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		return resp.StatusCode, nil
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := get("/healthz"); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("partmon did not serve on %s: %v\n%s", addr, err, firstLines(logs.String(), 20))
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, p := range databaseIndependentPaths {
		if code, err := get(p); err != nil || code != http.StatusOK {
			t.Errorf("GET %s with no database: %d, %v; want 200 (a probe on it would hold the pod back)", p, code, err)
		}
	}
	if code, err := get("/readyz/cycle"); err != nil || code != http.StatusServiceUnavailable {
		t.Errorf("GET /readyz/cycle with no database: %d, %v; want 503 (else this test does not show partmon without its database)", code, err)
	}
}

func firstLines(s string, n int) string {
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(s))
	for i := 0; i < n && sc.Scan(); i++ {
		fmt.Fprintln(&b, sc.Text())
	}
	return b.String()
}
