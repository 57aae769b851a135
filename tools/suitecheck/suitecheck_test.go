package suitecheck

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/partmon/partmon/tools/testkit"
)

// TestEveryIntegrationTestRuns: no integration test of the repository is
// left out of make test and make faults.
func TestEveryIntegrationTestRuns(t *testing.T) {
	root := testkit.Root(t)
	m := repoModule(t)
	tests := m.IntegrationTests()
	invs, err := ReadInvocations(root, "test", "faults")
	if err != nil {
		t.Fatal(err)
	}
	// The check proves nothing if it found nothing to check.
	packages := map[string]bool{}
	for _, tc := range tests {
		packages[tc.Package] = true
	}
	for _, want := range []string{"e2e", "reliability", "tools/testcluster", "collector", "analyzer"} {
		if !packages[want] {
			t.Errorf("found no integration test in ./%s; the suite check no longer reads the sources right", want)
		}
	}
	var integration int
	for _, inv := range invs {
		if inv.HasTag("integration") {
			integration++
		}
	}
	if integration < 2 {
		t.Errorf("read %d go test -tags integration commands from make test and make faults, want at least 2", integration)
	}

	unreached, reachedBy := Check(tests, invs)
	for _, u := range unreached {
		t.Error(u)
	}
	var lines []string
	for _, tc := range tests {
		if by := reachedBy[tc.Package+"."+tc.Name]; by != "" {
			lines = append(lines, "./"+tc.Package+" "+tc.Name+" <- "+by)
		}
	}
	t.Logf("%d integration tests in %d packages, %d run by %d go test commands:\n  %s",
		len(tests), len(packages), len(reachedBy), integration, strings.Join(lines, "\n  "))
}

// TestEveryFuzzTargetHasASeedCorpus holds docs/operations.md's promise: each
// fuzz target has seeds under testdata/fuzz/<target>/, which go test runs.
func TestEveryFuzzTargetHasASeedCorpus(t *testing.T) {
	m := repoModule(t)
	targets := m.FuzzTargets()
	if len(targets) == 0 {
		t.Fatal("found no fuzz target; the suite check no longer reads the sources right")
	}
	for _, f := range targets {
		seeds, err := m.SeedCorpus(f)
		if err != nil || len(seeds) == 0 {
			t.Errorf("%s (%s) has no committed seed corpus in ./%s/testdata/fuzz/%s/: %v", f.Name, f.Where, f.Package, f.Name, err)
		}
	}
}

var (
	repoOnce sync.Once
	repo     *Module
	repoErr  error
)

// repoModule is the repository's parsed source, read once.
func repoModule(t *testing.T) *Module {
	t.Helper()
	repoOnce.Do(func() {
		root, err := testkit.RepoRoot()
		if err != nil {
			repoErr = err
			return
		}
		repo, repoErr = LoadModule(root)
	})
	if repoErr != nil {
		t.Fatal(repoErr)
	}
	return repo
}

// writeTree writes files (path → content) under a new directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

const testMakefile = `GO ?= go
.PHONY: test faults
test: build
	scripts/test-all.sh
build:
	$(GO) build ./cmd/x
unit:
	$(GO) test -count=1 -tags integration ./never/...
lint:
	@echo lint
faults:
	scripts/faults.sh
`

func TestReadInvocations(t *testing.T) {
	root := writeTree(t, map[string]string{
		"Makefile": testMakefile,
		"scripts/test-all.sh": `#!/usr/bin/env bash
set -euo pipefail
export CLUSTER_DIR=${CLUSTER_DIR:-$PWD/.cluster}
export MAYBE=${MAYBE:-}
DIR=$PWD/.unbalanced
# go test -tags integration ./commented/
make --no-print-directory lint
go test -count=1 ./... 2>&1 | tee -a log
go test -count=1 -tags integration -timeout 40m -p 1 ./... 2>&1 | tee -a "$LOG"
UNBAL_HOSTS=127.0.0.10 UNBAL_DIR=$DIR \
	go test -count=1 -tags=integration -run TestUnbalanced -v ./analyzer/ 2>&1 | tail -20
if true; then go test -tags 'integration linux' -skip 'TestSlow' ./e2e; fi
`,
		"scripts/faults.sh": `#!/usr/bin/env bash
export FAULT_DIR=${FAULT_DIR:-$PWD/.cluster-faults}
go test -count=1 -tags integration -run '^TestFault' -v ./tools/testcluster/ 2>&1 |
	tee out.log
SIDE=1 setsid scripts/more.sh >side.log 2>&1 &
`,
		"scripts/more.sh": `ONLY='^(TestA|TestB)$'
go test -tags integration ./reliability/... -run "$ONLY"
`,
	})
	invs, err := ReadInvocations(root, "test", "faults")
	if err != nil {
		t.Fatal(err)
	}
	type want struct {
		where, run, skip string
		packages, tags   []string
		env              []string
	}
	wants := []want{
		{where: "scripts/test-all.sh:8", packages: []string{"./..."}, env: []string{"CLUSTER_DIR"}},
		{where: "scripts/test-all.sh:9", packages: []string{"./..."}, tags: []string{"integration"}, env: []string{"CLUSTER_DIR"}},
		{where: "scripts/test-all.sh:10", packages: []string{"./analyzer/"}, tags: []string{"integration"}, run: "TestUnbalanced",
			env: []string{"CLUSTER_DIR", "UNBAL_DIR", "UNBAL_HOSTS"}},
		{where: "scripts/test-all.sh:12", packages: []string{"./e2e"}, tags: []string{"integration", "linux"}, skip: "TestSlow", env: []string{"CLUSTER_DIR"}},
		{where: "scripts/faults.sh:3", packages: []string{"./tools/testcluster/"}, tags: []string{"integration"}, run: "^TestFault", env: []string{"FAULT_DIR"}},
		{where: "scripts/more.sh:2", packages: []string{"./reliability/..."}, tags: []string{"integration"}, run: "^(TestA|TestB)$", env: []string{"FAULT_DIR", "SIDE"}},
	}
	if len(invs) != len(wants) {
		t.Fatalf("read %d go test commands, want %d: %+v", len(invs), len(wants), invs)
	}
	for i, w := range wants {
		got := invs[i]
		var env []string
		for k, set := range got.Env {
			if set {
				env = append(env, k)
			}
		}
		slices.Sort(env)
		if got.Where != w.where || got.Run != w.run || got.Skip != w.skip || !slices.Equal(got.Packages, w.packages) ||
			!slices.Equal(got.Tags, w.tags) || !slices.Equal(env, w.env) {
			t.Errorf("command %d = %s packages %v tags %v run %q skip %q env %v;\n want %s packages %v tags %v run %q skip %q env %v",
				i, got.Where, got.Packages, got.Tags, got.Run, got.Skip, env, w.where, w.packages, w.tags, w.run, w.skip, w.env)
		}
	}
}

func TestReadInvocationsRefusesWhatItCannotRead(t *testing.T) {
	for name, script := range map[string]string{
		"package in a variable": "go test -tags integration $PKGS\n",
		"filter in a variable":  "go test -tags integration -run \"$ONLY\" ./e2e/\n",
		"flag without a value":  "go test -tags integration ./e2e/ -run\n",
	} {
		t.Run(name, func(t *testing.T) {
			root := writeTree(t, map[string]string{"Makefile": testMakefile, "scripts/test-all.sh": script, "scripts/faults.sh": ""})
			if _, err := ReadInvocations(root, "test"); err == nil {
				t.Errorf("read %q without an error", script)
			}
		})
	}
}

// A test module: a fault test gated like tools/testcluster's (through a
// helper in another package and a constant), a test gated directly, and
// ungated ones.
var testModule = map[string]string{
	"go.mod": "module example.com/m\n\ngo 1.26\n",
	"kit/faults.go": `package kit

import (
	"os"
	"testing"
)

const DirEnv = "FAULT_DIR"

func FaultCluster(t testing.TB) string {
	dir := os.Getenv(DirEnv)
	if dir == "" {
		t.Skipf("%s is not set", DirEnv)
	}
	return dir
}

// Hosts reads an env variable but never skips.
func Hosts() string { return os.Getenv("HOSTS") }
`,
	"kit/faults_integration_test.go": `//go:build integration

package kit

import "testing"

func TestFaultInjection(t *testing.T) { f := faults(t); _ = f }

func faults(t *testing.T) string { return FaultCluster(t) }

func TestTopology(t *testing.T) { _ = Hosts() }
`,
	"rel/harness_integration_test.go": `//go:build integration

package rel

import (
	"os"
	"testing"

	"example.com/m/kit"
)

type cluster struct{ dir string }

func own(t *testing.T) *cluster { return &cluster{dir: kit.FaultCluster(t)} }

func (c *cluster) start(t *testing.T) {}

func TestNodeFaults(t *testing.T) { c := own(t); c.start(t) }

func TestUnbalanced(t *testing.T) {
	if os.Getenv("UNBAL_HOSTS") == "" {
		t.Skip("not set")
	}
}

func TestPlain(t *testing.T) {}

func Testlowercase(t *testing.T) {}
`,
	"rel/unit_test.go": `package rel

import "testing"

func TestUnit(t *testing.T) {}

func FuzzParse(f *testing.F) {}
`,
}

func TestIntegrationTestsAndTheirGates(t *testing.T) {
	m, err := LoadModule(writeTree(t, testModule))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tc := range m.IntegrationTests() {
		got = append(got, tc.Package+"."+tc.Name+" needs "+strings.Join(tc.NeedsEnv, ","))
	}
	want := []string{
		"kit.TestFaultInjection needs FAULT_DIR",
		"kit.TestTopology needs ",
		"rel.TestNodeFaults needs FAULT_DIR",
		"rel.TestPlain needs ",
		"rel.TestUnbalanced needs UNBAL_HOSTS",
	}
	if !slices.Equal(got, want) {
		t.Errorf("integration tests:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	if f := m.FuzzTargets(); len(f) != 1 || f[0].Name != "FuzzParse" || f[0].Package != "rel" {
		t.Errorf("fuzz targets %v, want rel.FuzzParse", f)
	}
}

// TestCheckCatchesAFaultTestNoScriptRuns is the case that went unnoticed:
// make faults ran only ./reliability/, and make test's ./... does not set
// the fault cluster's variable, so TestFaultInjection always skipped.
func TestCheckCatchesAFaultTestNoScriptRuns(t *testing.T) {
	m, err := LoadModule(writeTree(t, testModule))
	if err != nil {
		t.Fatal(err)
	}
	tests := m.IntegrationTests()
	all := Invocation{Where: "test-all.sh:1", Packages: []string{"./..."}, Tags: []string{"integration"}, Env: map[string]bool{}}
	unbal := Invocation{Where: "test-all.sh:2", Packages: []string{"./rel/"}, Tags: []string{"integration"}, Run: "TestUnbalanced$",
		Env: map[string]bool{"UNBAL_HOSTS": true}}
	faultsOld := Invocation{Where: "faults.sh:1", Packages: []string{"./rel/"}, Tags: []string{"integration"}, Env: map[string]bool{"FAULT_DIR": true}}
	faultsNew := Invocation{Where: "faults.sh:2", Packages: []string{"./kit/"}, Tags: []string{"integration"}, Run: "^TestFault",
		Env: map[string]bool{"FAULT_DIR": true}}
	unit := Invocation{Where: "Makefile:9", Packages: []string{"./..."}, Env: map[string]bool{"FAULT_DIR": true, "UNBAL_HOSTS": true}}
	cases := []struct {
		name string
		invs []Invocation
		want []string // unreached tests
	}{
		{"make test and the old make faults", []Invocation{all, unbal, faultsOld}, []string{"TestFaultInjection"}},
		{"make faults runs the testcluster fault tests", []Invocation{all, unbal, faultsOld, faultsNew}, nil},
		{"no unbalanced run", []Invocation{all, faultsOld, faultsNew}, []string{"TestUnbalanced"}},
		{"unit tests build without the tag", []Invocation{unit}, []string{"TestFaultInjection", "TestTopology", "TestNodeFaults", "TestPlain", "TestUnbalanced"}},
		{"a -run filter that matches nothing", []Invocation{all, faultsOld, {Where: "x", Packages: []string{"./..."}, Tags: []string{"integration"}, Run: "TestUnbalancedRing",
			Env: map[string]bool{"UNBAL_HOSTS": true, "FAULT_DIR": true}}}, []string{"TestFaultInjection", "TestUnbalanced"}},
		{"a -skip filter", []Invocation{{Where: "x", Packages: []string{"./..."}, Tags: []string{"integration"}, Skip: "Fault|Unbalanced",
			Env: map[string]bool{"UNBAL_HOSTS": true, "FAULT_DIR": true}}}, []string{"TestFaultInjection", "TestNodeFaults", "TestUnbalanced"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			unreached, _ := Check(tests, tc.invs)
			var got []string
			for _, u := range unreached {
				got = append(got, u.Test.Name)
			}
			slices.Sort(got)
			want := slices.Sorted(slices.Values(tc.want))
			if !slices.Equal(got, want) {
				t.Errorf("unreached %v, want %v", got, want)
			}
			for _, u := range unreached {
				if u.Test.Name == "TestFaultInjection" && len(tc.invs) == 3 && !strings.Contains(u.String(), "does not set FAULT_DIR") {
					t.Errorf("the report does not say what is missing: %s", u)
				}
			}
		})
	}
}
