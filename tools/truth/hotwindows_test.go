package truth

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The one-shot's two windows of truth_timeline.user_timeline on one node,
// as a loaded CI run recorded them (testdata/README.md): key 0 took 32 of
// 52 sampled reads in the first and 67 of 86 in the second, 143 s later.
// partmon reported 0.615, the first: the lower assured share, the one its
// lowerOfPasses grades.
func TestHotKeyChecksTakeTheWindowTheOneShotGraded(t *testing.T) {
	const node, tk = "127.0.0.14", "truth_timeline.user_timeline"
	recorded, err := loadSamplerRuns(filepath.Join("testdata", "oneshot-profileload"))
	if err != nil {
		t.Fatal(err)
	}
	runs := recorded[node]
	if len(runs) != 2 || runs[1].Start.Sub(runs[0].Start).Round(time.Second) != 143*time.Second {
		t.Fatalf("fixture: %d runs %v, want the two windows 143 s apart", len(runs), runs)
	}
	first, second := 32.0/52, 67.0/86
	swapped := func(rs []SamplerRun) []SamplerRun {
		a, b := rs[0], rs[1]
		a.Tables, b.Tables = b.Tables, a.Tables
		return []SamplerRun{a, b}
	}
	secondCut := func(rs []SamplerRun) []SamplerRun {
		b := rs[1]
		b.ReadsListed = samplerListed
		return []SamplerRun{rs[0], b}
	}
	withError := func(rs []SamplerRun) []SamplerRun {
		a := rs[0]
		a.Tables = map[string]Profile{tk: {Reads: append([]KeyCount{{Key: "0", Count: 32, Error: 2}}, a.Tables[tk].Reads[1:]...)}}
		return []SamplerRun{a, rs[1]}
	}
	same := func(rs []SamplerRun) []SamplerRun { return rs }
	for _, c := range []struct {
		name    string
		windows func([]SamplerRun) []SamplerRun
		partmon float64
		wantOK  []bool // the graded-window check, when there is one
		wantRef float64
		say     string // in the check's source
	}{
		{"partmon reports the lower window", same, first, []bool{true}, first, "lower assured share"},
		{"partmon reports the higher window", same, second, []bool{false}, first, "lower assured share"},
		{"partmon reports a figure matching neither", same, 0.5, []bool{false}, first, "lower assured share"},
		{"the lower window second", swapped, first, []bool{true}, first, "lower assured share"},
		{"the second pass failed: its one window", func(rs []SamplerRun) []SamplerRun { return rs[1:] }, second, []bool{true}, second, "run on the node"},
		{"the error bound counts against the key", withError, 30.0 / 52, []bool{true}, 30.0 / 52, "count − error"},
		{"a cut list, the figure matches the uncut window", secondCut, first, []bool{true}, first, "cannot be told"},
		{"a cut list, the figure matches no uncut window", secondCut, second, nil, 0, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			obs := &Observations{Samples: map[string][]SamplerRun{node: c.windows(runs)}, ReportRead: runs[1].End.Add(time.Second), SampledTwice: true}
			// The finding as the one-shot printed it: several nodes, none named
			// as the finding's, each with its own value.
			f := &Finding{Kind: "hot_partition", Keyspace: "truth_timeline", Table: "user_timeline", PartitionKey: "0",
				Nodes: nodeList{node, "127.0.0.16"}, NodeValues: map[string]float64{node: c.partmon, "127.0.0.16": 0.75}, Value: 0.75,
				Summary: "key 0 takes 75 % of truth_timeline.user_timeline's sampled reads on 127.0.0.16 (39 ± 0 of 52 operations, sampler total) over 10 s"}
			checks := hotKeyChecks(f, f.AllNodes(), tk, figureContext{obs: obs})
			if len(checks) != len(c.wantOK) {
				t.Fatalf("%d checks %+v, want %d", len(checks), checks, len(c.wantOK))
			}
			for i, ok := range c.wantOK {
				got := checks[i]
				if got.OK != ok || got.Node != node || abs(got.Reference-c.wantRef) > 1e-9 || !strings.Contains(got.Source, c.say) {
					t.Errorf("check on %s: ok %v (want %v), reference %g (want %g), source %q (want %q in it)",
						got.Node, got.OK, ok, got.Reference, c.wantRef, got.Source, c.say)
				}
			}
		})
	}
}

func TestParseSamplerRunReadsTheErrorBound(t *testing.T) {
	run := parseSamplerRun("Frequency of reads by partition:\n   Table Partition Count +/-\n   ks.t  two words  41  3  \n")
	want := KeyCount{Key: "two words", Count: 41, Error: 3}
	if got := run.Tables["ks.t"].Reads; len(got) != 1 || got[0] != want {
		t.Errorf("parsed %+v, want %+v", got, want)
	}
}

// The windows a report took a node's share from: the one-shot's every run
// before the report was read, however far apart; a daemon's one run of
// the report's pass.
func TestPartmonWindows(t *testing.T) {
	t0 := time.Date(2026, 12, 3, 8, 22, 52, 0, time.UTC)
	run := func(start time.Time) SamplerRun { return SamplerRun{Start: start, End: start.Add(25 * time.Second)} }
	first, second, daemonLater := run(t0), run(t0.Add(143*time.Second)), run(t0.Add(6*time.Minute))
	starts := func(rs []SamplerRun) []time.Time {
		var out []time.Time
		for _, r := range rs {
			out = append(out, r.Start)
		}
		return out
	}
	for _, c := range []struct {
		name  string
		obs   Observations
		pass  time.Time
		wants []SamplerRun
	}{
		{"one-shot: both windows, 143 s apart", Observations{SampledTwice: true, ReportRead: t0.Add(4 * time.Minute)}, time.Time{}, []SamplerRun{first, second}},
		{"one-shot: a run that ended after the report is not in it", Observations{SampledTwice: true, ReportRead: t0.Add(time.Minute)}, time.Time{}, []SamplerRun{first}},
		{"daemon, no pass known: the latest run before the report", Observations{ReportRead: t0.Add(5 * time.Minute)}, time.Time{}, []SamplerRun{second}},
		{"daemon: the run of the pass", Observations{ReportRead: t0.Add(7 * time.Minute)}, t0.Add(10 * time.Second), []SamplerRun{first}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.obs.Samples = map[string][]SamplerRun{"n": {first, second, daemonLater}}
			got := c.obs.partmonWindows("n", c.pass)
			if g, w := starts(got), starts(c.wants); !slices.Equal(g, w) {
				t.Errorf("windows starting %v, want %v", g, w)
			}
		})
	}
}
