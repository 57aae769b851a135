package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stream is a `go test -json` stream of three packages, as go 1.26 writes
// it: one whose tests ran (one skipped, one with a subtest), one whose
// every test skipped, one with a failed test; and a package without tests.
const stream = `{"Action":"start","Package":"p/ran"}
{"Action":"run","Package":"p/ran","Test":"TestA"}
{"Action":"output","Package":"p/ran","Test":"TestA","Output":"=== RUN   TestA\n"}
{"Action":"output","Package":"p/ran","Test":"TestA/sub","Output":"    a_test.go:9: measured 3 ms\n"}
{"Action":"pass","Package":"p/ran","Test":"TestA/sub","Elapsed":2.5}
{"Action":"pass","Package":"p/ran","Test":"TestA","Elapsed":2.51}
{"Action":"output","Package":"p/ran","Test":"TestB","Output":"    b_test.go:4: chromium is not on PATH\n"}
{"Action":"output","Package":"p/ran","Test":"TestB","Output":"--- SKIP: TestB (0.00s)\n"}
{"Action":"skip","Package":"p/ran","Test":"TestB"}
{"Action":"output","Package":"p/ran","Output":"PASS\n"}
{"Action":"output","Package":"p/ran","Output":"ok  \tp/ran\t0.012s\n"}
{"Action":"pass","Package":"p/ran"}
{"Action":"output","Package":"p/skipped","Test":"TestC","Output":"--- SKIP: TestC (0.00s)\n"}
{"Action":"skip","Package":"p/skipped","Test":"TestC"}
{"Action":"output","Package":"p/skipped","Output":"ok  \tp/skipped\t0.003s\n"}
{"Action":"pass","Package":"p/skipped"}
{"Action":"output","Package":"p/failed","Test":"TestD","Output":"    d_test.go:7: got 2, want 3\n"}
{"Action":"output","Package":"p/failed","Test":"TestD","Output":"--- FAIL: TestD (0.00s)\n"}
{"Action":"fail","Package":"p/failed","Test":"TestD","Elapsed":7}
{"Action":"output","Package":"p/failed","Output":"FAIL\n"}
{"Action":"output","Package":"p/failed","Output":"FAIL\tp/failed\t0.004s\n"}
{"Action":"fail","Package":"p/failed"}
{"Action":"output","Package":"p/none","Output":"?   \tp/none\t[no test files]\n"}
{"Action":"skip","Package":"p/none"}
`

func TestRender(t *testing.T) {
	tests := []struct {
		name    string
		verbose bool
		want    string
	}{
		{"plain: a passed test says nothing, a skip its reason, a failure everything", false,
			"    b_test.go:4: chromium is not on PATH\n--- SKIP: TestB (0.00s)\n" +
				"ok  \tp/ran\t0.012s\t(1 passed, 1 skipped)\n" +
				"--- SKIP: TestC (0.00s)\n" +
				"ok  \tp/skipped\t0.003s\t(every test skipped: 1)\n" +
				"    d_test.go:7: got 2, want 3\n--- FAIL: TestD (0.00s)\nFAIL\nFAIL\tp/failed\t0.004s\n" +
				"?   \tp/none\t[no test files]\n"},
		{"verbose: every line", true,
			"=== RUN   TestA\n    a_test.go:9: measured 3 ms\n" +
				"    b_test.go:4: chromium is not on PATH\n--- SKIP: TestB (0.00s)\n" +
				"ok  \tp/ran\t0.012s\t(1 passed, 1 skipped)\n" +
				"--- SKIP: TestC (0.00s)\n" +
				"ok  \tp/skipped\t0.003s\t(every test skipped: 1)\n" +
				"    d_test.go:7: got 2, want 3\n--- FAIL: TestD (0.00s)\nFAIL\nFAIL\tp/failed\t0.004s\n" +
				"?   \tp/none\t[no test files]\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			if _, err := render(strings.NewReader(stream), &out, tc.verbose, nil); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

// TestTotal: a package whose every test skipped is not counted as passed;
// a failed package counts once (not also for go test's bare FAIL line);
// an ok line from a run not rendered by testsummary counts as passed.
func TestTotal(t *testing.T) {
	var rendered strings.Builder
	if _, err := render(strings.NewReader(stream), &rendered, false, nil); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	first, second := filepath.Join(dir, "unit.log"), filepath.Join(dir, "versions.log")
	if err := os.WriteFile(first, []byte(rendered.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	plain := "ok  \tp/e2e\t12.1s [Cassandra 4.1]\nFAIL\nFAIL\tp/e2e\t3.0s [Cassandra 4.0]\n"
	if err := os.WriteFile(second, []byte(plain), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := totalOf([]string{first, second})
	if err != nil {
		t.Fatal(err)
	}
	if want := "summary: 2 passed, 2 failed, 1 skipped"; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// TestSlowest: -times keeps each top-level test (no subtest, no package
// line) with its label; -slowest orders them across files, slowest first.
func TestSlowest(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "times.tsv")
	for _, label := range []string{"5.0.8", "4.1.10"} {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		_, err = render(strings.NewReader(stream), &out, false, &timesWriter{w: f, label: label})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	var got strings.Builder
	if err := printSlowest(&got, 3, []string{path}); err != nil {
		t.Fatal(err)
	}
	want := "     7.0 s  p/failed TestD [5.0.8]\n" +
		"     7.0 s  p/failed TestD [4.1.10]\n" +
		"     2.5 s  p/ran TestA [5.0.8]\n"
	if got.String() != want {
		t.Errorf("got\n%s\nwant\n%s", got.String(), want)
	}
	if err := os.WriteFile(path, []byte("soon\tp\tTestX\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := printSlowest(&got, 3, []string{path}); err == nil {
		t.Error("a line without seconds was read as a time")
	}
}

// -no-skip: a step that started a cluster for its tests fails when every
// test of a package skipped; a package whose tests ran is not named.
func TestAllSkippedNamesOnlyPackagesThatRanNothing(t *testing.T) {
	var out strings.Builder
	runs, err := render(strings.NewReader(stream), &out, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := allSkipped(runs)
	if len(got) != 1 || got[0] != "p/skipped" {
		t.Errorf("allSkipped = %v, want [p/skipped]", got)
	}
}
