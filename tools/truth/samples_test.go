package truth

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestRecorderKeepsProfileloadRuns runs the recorder script as partmon's
// sampler does: it passes the command's output and exit code through and
// keeps only a profileload run that succeeded, named by node and window.
func TestRecorderKeepsProfileloadRuns(t *testing.T) {
	out := t.TempDir()
	prefix, err := writeRecorder(out, PhaseOneShot)
	if err != nil {
		t.Fatal(err)
	}
	capture, err := filepath.Abs(filepath.Join("testdata", "profileload_all_tables_orders.txt"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(addr string, cmd ...string) (string, int) {
		args := append([]string{prefix[1], addr}, cmd...)
		c := exec.Command(prefix[0], args...)
		b, err := c.Output()
		code := 0
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(b), code
	}
	// sh -c 'cat FILE' profileload …: $0 is "profileload", so the run is a profileload one.
	stdout, code := run("127.0.0.63", "sh", "-c", `cat "$1"`, "profileload", capture)
	want, _ := os.ReadFile(capture)
	if code != 0 || stdout != string(want) {
		t.Fatalf("recorded run printed %q (exit %d), want the command's output", stdout, code)
	}
	if _, code := run("127.0.0.62", "sh", "-c", "echo partial; exit 3", "profileload"); code != 3 {
		t.Errorf("a failed run exits %d, want the command's 3", code)
	}
	if stdout, _ := run("127.0.0.61", "sh", "-c", "echo histograms", "tablehistograms"); stdout != "histograms\n" {
		t.Errorf("another subcommand printed %q", stdout)
	}
	runs, err := loadSamplerRuns(prefix[1])
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 1 || len(runs["127.0.0.63"]) != 1 {
		t.Fatalf("kept runs %v: want the one successful profileload run of 127.0.0.63", runs)
	}
	r := runs["127.0.0.63"][0]
	if r.End.Before(r.Start) || time.Since(r.Start) > time.Minute {
		t.Errorf("window %s..%s", r.Start, r.End)
	}
	p := r.Tables["truth_orders_country.orders_by_country"]
	if p.count("US", true, false) != 56 || p.count("DE", true, false) != 41 || r.ReadsListed != 2 || r.WritesListed != 0 {
		t.Errorf("parsed %+v, listed %d/%d", p, r.ReadsListed, r.WritesListed)
	}
}

// A daemon's report shows one window of one pass: the run whose count
// partmon prints, not the latest.
func TestHotKeyChecksHoldPartmonToItsOwnWindow(t *testing.T) {
	const tk = "truth_orders_country.orders_by_country"
	t0 := time.Date(2026, 12, 2, 2, 47, 0, 0, time.UTC)
	runOf := func(start time.Time, us, de int64) SamplerRun {
		return SamplerRun{Start: start, End: start.Add(12 * time.Second), ReadsListed: 2,
			Tables: map[string]Profile{tk: {Reads: []KeyCount{{Key: "US", Count: us}, {Key: "DE", Count: de}}}}}
	}
	earlier, later := runOf(t0, 56, 41), runOf(t0.Add(3*time.Minute), 62, 32)
	cut := later
	cut.ReadsListed = samplerListed
	finding := func(share float64, count, total int) *Finding {
		return &Finding{Kind: "hot_partition", Keyspace: "truth_orders_country", Table: "orders_by_country", Node: "127.0.0.63",
			PartitionKey: "US", Value: share,
			Summary: "key US takes x of " + tk + "'s sampled reads on 127.0.0.63 (" + strconv.Itoa(count) + " ± 0 of " + strconv.Itoa(total) + " operations, sampler total)"}
	}
	independent := map[string]map[string]Profile{"127.0.0.63": {tk: {Reads: []KeyCount{{Key: "US", Count: 200}, {Key: "DE", Count: 70}}}}}
	for _, c := range []struct {
		name    string
		f       *Finding
		runs    []SamplerRun
		read    time.Time
		wantOK  []bool // the same-window check(s), then the later window's
		wantRef float64
	}{
		// partmon's 56 of 97 is the earlier window's: held to it, not to the latest.
		{"its own window", finding(56.0/97, 56, 97), []SamplerRun{earlier, later}, time.Time{}, []bool{true, false}, 56.0 / 97},
		{"the latest window", finding(62.0/94, 62, 94), []SamplerRun{earlier, later}, time.Time{}, []bool{true, true}, 62.0 / 94},
		// a count no window printed: held to the latest run, and off.
		{"no window has partmon's count", finding(0.48, 46, 96), []SamplerRun{earlier, later}, time.Time{}, []bool{false, false}, 62.0 / 94},
		// a run that ended after the report was read is not in it.
		{"a run after the report", finding(0.48, 46, 96), []SamplerRun{earlier, later}, t0.Add(time.Minute), []bool{false, false}, 56.0 / 97},
		// a cut list has no total: only the later window's check remains.
		{"cut list", finding(62.0/94, 62, 94), []SamplerRun{earlier, cut}, time.Time{}, []bool{true}, 200.0 / 270},
	} {
		t.Run(c.name, func(t *testing.T) {
			obs := &Observations{Profiles: independent, Samples: map[string][]SamplerRun{"127.0.0.63": c.runs}, ReportRead: c.read}
			checks := hotKeyChecks(c.f, c.f.AllNodes(), tk, figureContext{obs: obs})
			if len(checks) != len(c.wantOK) {
				t.Fatalf("%d checks %+v, want %d", len(checks), checks, len(c.wantOK))
			}
			for i, ok := range c.wantOK {
				if checks[i].OK != ok {
					t.Errorf("check %d (%s): ok %v, want %v: partmon %g vs %g", i, checks[i].Source, checks[i].OK, ok, checks[i].Partmon, checks[i].Reference)
				}
			}
			last := checks[len(checks)-1]
			if !last.LaterWindow || !strings.Contains(last.Source, "later window") {
				t.Errorf("the independent sample's check is not marked: %+v", last)
			}
			if len(checks) > 1 && (checks[0].LaterWindow || abs(checks[0].Reference-c.wantRef) > 1e-9) {
				t.Errorf("same-window reference %g (later %v), want %g", checks[0].Reference, checks[0].LaterWindow, c.wantRef)
			}
			if len(checks) == 1 && abs(last.Reference-c.wantRef) > 1e-9 {
				t.Errorf("reference %g, want %g", last.Reference, c.wantRef)
			}
		})
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
