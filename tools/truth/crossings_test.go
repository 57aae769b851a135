package truth

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func guardScenario() *Scenario {
	return &Scenario{
		Name: "grow", Keyspace: "truth_g", Design: DesignBad, Cluster: ClusterGuardrail,
		Guardrails: map[string]string{"partition_size_warn_threshold": "16MiB", "partition_size_fail_threshold": "24MiB"},
		Tables:     []Table{{Name: "t", Partitions: 10, Rows: 1}},
		Grow:       []Grow{{Table: "t", Partition: 3, RowsPerSecond: 1}},
		Crossings:  []CrossingTruth{{Table: "t", Partition: 3, Guardrail: "partition_size", Level: "warn", Tolerance: time.Minute, Why: "w"}},
	}
}

func TestValidateGuardrails(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Scenario)
		want   string // "" valid
	}{
		{"valid", func(*Scenario) {}, ""},
		{"settings on another cluster", func(s *Scenario) { s.Cluster = ClusterSingle }, "only the guardrail cluster"},
		{"not a threshold", func(s *Scenario) { s.Guardrails["partition_size"] = "1MiB" }, "want a cassandra.yaml"},
		{"not a size", func(s *Scenario) { s.Guardrails["partition_size_warn_threshold"] = "16 MB" }, "want a cassandra.yaml"},
		{"key not grown", func(s *Scenario) { s.Crossings[0].Partition = 4 }, "does not grow"},
		{"partition out of range", func(s *Scenario) { s.Crossings[0].Partition = 10 }, "partition in range"},
		{"other guardrail", func(s *Scenario) { s.Crossings[0].Guardrail = "page_size" }, "want guardrail"},
		{"bad level", func(s *Scenario) { s.Crossings[0].Level = "error" }, "level warn or fail"},
		{"level not set", func(s *Scenario) { delete(s.Guardrails, "partition_size_warn_threshold") }, "does not set partition_size_warn_threshold"},
		{"no tolerance", func(s *Scenario) { s.Crossings[0].Tolerance = 0 }, "positive tolerance"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := guardScenario()
			c.change(s)
			errs := s.validateGuardrails()
			got := ""
			for _, e := range errs {
				got += e.Error() + "; "
			}
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("errors %q, want %q", got, c.want)
			}
		})
	}
}

func TestJVMOpts(t *testing.T) {
	a, b := guardScenario(), guardScenario()
	opts, err := JVMOpts([]*Scenario{a, b, {Name: "plain"}})
	want := "-Dcassandra.config.allow_system_properties=true -Dcassandra.settings.partition_size_fail_threshold=24MiB -Dcassandra.settings.partition_size_warn_threshold=16MiB"
	if err != nil || opts != want {
		t.Errorf("JVMOpts = %q, %v; want %q", opts, err, want)
	}
	if opts, err := JVMOpts([]*Scenario{{Name: "plain"}}); err != nil || opts != "" {
		t.Errorf("no settings: %q, %v; want empty", opts, err)
	}
	b.Guardrails["partition_size_warn_threshold"] = "8MiB"
	if _, err := JVMOpts([]*Scenario{a, b}); err == nil || !strings.Contains(err.Error(), "share its settings") {
		t.Errorf("conflicting settings: %v, want an error", err)
	}
}

func TestSameSetting(t *testing.T) {
	for _, c := range []struct {
		got, want string
		same      bool
	}{{"16MiB", "16MiB", true}, {"16384KiB", "16MiB", true}, {"8MiB", "16MiB", false}, {"null", "16MiB", false}, {"10000", "10000", true}} {
		if sameSetting(c.got, c.want) != c.same {
			t.Errorf("sameSetting(%q, %q) = %v", c.got, c.want, !c.same)
		}
	}
}

func TestFirstLoggedCrossings(t *testing.T) {
	dir := t.TempDir()
	n1 := `INFO  [main] 2026-12-05 11:40:00,000 Flushing - nothing
WARN  [CompactionExecutor:2] 2026-12-05 10:10:00,000 Guardrail - Guardrail partition_size violated: Partition truth_g.t:acct-3 on sstable /d/nb-1-big-Data.db has size 17000000, this exceeds the warning threshold of 16777216. An earlier run's line.
WARN  [CompactionExecutor:2] 2026-12-05 11:41:02,500 Guardrail - Guardrail partition_size violated: Partition truth_g.t:acct-3 on sstable /d/nb-4-big-Data.db has size 17000000, this exceeds the warning threshold of 16777216. Too large partitions can cause performance problems.
WARN  [CompactionExecutor:2] 2026-12-05 11:41:40,000 Guardrail - Guardrail partition_size violated: Partition truth_g.t:acct-3 on sstable /d/nb-5-big-Data.db has size 20000000, this exceeds the warning threshold of 16777216. Too large partitions can cause performance problems.
ERROR [CompactionExecutor:2] 2026-12-05 11:43:10,100 Guardrail - Guardrail partition_size violated: Partition truth_g.t:acct-3 on sstable /d/nb-6-big-Data.db has size 26000000, this exceeds the failure threshold of 25165824. Too large partitions can cause performance problems.
`
	n2 := `WARN  [CompactionExecutor:1] 2026-12-05 11:40:59,000 Guardrail - Guardrail partition_size violated: Partition truth_g.t:acct-3 on sstable /d/nb-2-big-Data.db has size 16800000, this exceeds the warning threshold of 16777216. Too large partitions can cause performance problems.
WARN  [CompactionExecutor:1] 2026-12-05 11:42:00,000 Guardrail - Guardrail partition_tombstones violated: Partition truth_g.q:jobs on sstable /d/nb-3-big-Data.db has 19995 tombstones, this exceeds the warning threshold of 10000. Partitions with too many tombstones can cause performance problems.
`
	logs := map[string]string{"10.0.0.1": filepath.Join(dir, "n1.log"), "10.0.0.2": filepath.Join(dir, "n2.log")}
	for node, text := range map[string]string{"10.0.0.1": n1, "10.0.0.2": n2} {
		if err := os.WriteFile(logs[node], []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := firstLoggedCrossings(logs, time.Date(2026, 12, 5, 11, 0, 0, 0, time.Local))
	if err != nil {
		t.Fatal(err)
	}
	at := func(s string) time.Time { v, _ := time.ParseInLocation("15:04:05.000", s, time.Local); return v }
	want := map[string]struct {
		clock, node string
		value       float64
	}{
		crossingID("truth_g.t:acct-3", "partition_size", "warn"):     {"11:40:59.000", "10.0.0.2", 16800000},
		crossingID("truth_g.t:acct-3", "partition_size", "fail"):     {"11:43:10.100", "10.0.0.1", 26000000},
		crossingID("truth_g.q:jobs", "partition_tombstones", "warn"): {"11:42:00.000", "10.0.0.2", 19995},
	}
	if len(got) != len(want) {
		t.Errorf("got %d crossings, want %d: %+v", len(got), len(want), got)
	}
	for id, w := range want {
		g, ok := got[id]
		wantAt := at(w.clock)
		if !ok || g.Node != w.node || g.Value != w.value || g.At.Format("15:04:05.000") != wantAt.Format("15:04:05.000") {
			t.Errorf("%s: got %+v, want %s on %s at %.0f", id, g, w.clock, w.node, w.value)
		}
	}
}

func TestJudgeCrossings(t *testing.T) {
	t0 := time.Date(2026, 12, 5, 11, 0, 0, 0, time.Local)
	logged := t0.Add(5 * time.Minute)
	keyOf := func(_ *Scenario, _ string, p int) string { return []string{"a0", "a1", "a2", "a3"}[p] }
	forecast := func(seenMin float64, key string, atFromLogged time.Duration) ForecastSample {
		return ForecastSample{Seen: t0.Add(time.Duration(seenMin * float64(time.Minute))), Keyspace: "truth_g", Table: "t", Key: key,
			Guardrail: "partition_size", Level: "warn", At: logged.Add(atFromLogged).Unix()}
	}
	good := &Scenario{Name: "calm", Keyspace: "truth_calm", Design: DesignGood}
	cases := []struct {
		name      string
		samples   []ForecastSample
		noLog     bool
		found     bool
		note      string
		falseN    int
		lead, err time.Duration
	}{
		{"first forecast within tolerance", []ForecastSample{forecast(2, "", -40*time.Second), forecast(3, "a3", -5*time.Second)}, false, true, "", 0, 3 * time.Minute, -40 * time.Second},
		{"first forecast beyond tolerance", []ForecastSample{forecast(2, "", 90*time.Second), forecast(4, "", 0)}, false, false, "beyond the tolerance", 0, 3 * time.Minute, 90 * time.Second},
		{"only after the crossing", []ForecastSample{forecast(5, "", 0), forecast(6, "a3", 0)}, false, false, "no forecast made before", 0, 0, 0},
		{"not logged", []ForecastSample{forecast(2, "", 0)}, true, false, "logged no crossing", 0, 0, 0},
		{"another key's forecast is false", []ForecastSample{forecast(2, "a3", 10*time.Second), forecast(2, "a1", 0)}, false, true, "", 1, 3 * time.Minute, 10 * time.Second},
		{"a good design's forecast is false", []ForecastSample{forecast(2, "", 0), {Seen: t0, Keyspace: "truth_calm", Table: "c", Guardrail: "partition_size", Level: "warn", Crossed: true}}, false, true, "", 1, 3 * time.Minute, 0},
		{"a crossed figure is not a forecast", []ForecastSample{{Seen: t0, Keyspace: "truth_g", Table: "t", Guardrail: "partition_size", Level: "warn", Crossed: true}}, false, false, "no forecast made before", 0, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := guardScenario()
			logs := map[string]LoggedCrossing{crossingID("truth_g.t:a3", "partition_size", "warn"): {At: logged, Node: "n1"}}
			if c.noLog {
				logs = nil
			}
			res, falses := judgeCrossings([]*Scenario{sc, good}, keyOf, nil, c.samples, logs)
			if len(res) != 1 {
				t.Fatalf("%d results, want 1", len(res))
			}
			r := res[0]
			if r.Found != c.found || !strings.Contains(r.Note, c.note) || len(falses) != c.falseN || r.Lead != c.lead || r.Error != c.err {
				t.Errorf("found %v note %q falses %d lead %s error %s; want %v %q %d %s %s", r.Found, r.Note, len(falses), r.Lead, r.Error, c.found, c.note, c.falseN, c.lead, c.err)
			}
		})
	}
}

func TestSummaryFailsOnCrossings(t *testing.T) {
	found := CrossingResult{Scenario: "grow", Found: true}
	missed := CrossingResult{Scenario: "grow", Note: "no forecast made before the logged crossing"}
	cases := []struct {
		name   string
		phase  PhaseResult
		failed bool
		line   string
		defect string // in the defect list; "" none
	}{
		{"found", PhaseResult{Phase: PhaseDaemon, Crossings: []CrossingResult{found}}, false, "| `guardrail_crossing` | 1 | 1 | 0 | 0 | 1 of 1 |", ""},
		{"missed", PhaseResult{Phase: PhaseDaemon, Crossings: []CrossingResult{found, missed}}, true, "| `guardrail_crossing` | 2 | 1 | 1 | 0 | 1 of 1 |",
			"**missed crossing**"},
		{"false forecast on the good design", PhaseResult{Phase: PhaseDaemon, Crossings: []CrossingResult{found},
			FalseForecasts: []FalseForecast{{Scenario: "calm", Design: DesignGood}}}, true, "| `guardrail_crossing` | 1 | 1 | 0 | 1 | 0 of 1 |", "**false forecast** (scenario calm)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cr := &ClusterResult{Cluster: ClusterGuardrail, Phases: []PhaseResult{c.phase},
				Scenarios: []ScenarioBrief{{Name: "grow", Design: DesignBad}, {Name: "calm", Design: DesignGood}}}
			s := Summarize([]*ClusterResult{cr}, PhaseDaemon)
			var b strings.Builder
			s.WriteMarkdown(&b)
			if s.Failed() != c.failed || !strings.Contains(b.String(), c.line) {
				t.Errorf("failed %v, want %v; markdown:\n%s\nwant the line %s", s.Failed(), c.failed, b.String(), c.line)
			}
			var d strings.Builder
			WriteDefects(&d, []Summary{s})
			if got := strings.Contains(d.String(), "**"); got != (c.defect != "") || !strings.Contains(d.String(), c.defect) {
				t.Errorf("defects:\n%s\nwant %q", d.String(), c.defect)
			}
		})
	}
}

// The guardrail part of the corpus: on the guardrail cluster, a planted
// key crossing partition_size's warn and fail levels, and a good design
// beside it; the levels merge into one set of node options.
func TestGuardrailCorpus(t *testing.T) {
	all, err := LoadDir("scenarios")
	if err != nil {
		t.Fatal(err)
	}
	scs := For(all, ClusterGuardrail, false)
	levels, good := map[string]bool{}, 0
	for _, s := range scs {
		if s.Design == DesignGood && len(s.Crossings) == 0 {
			good++
		}
		for _, c := range s.Crossings {
			levels[c.Guardrail+" "+c.Level] = true
		}
	}
	if !levels["partition_size warn"] || !levels["partition_size fail"] || good == 0 {
		t.Errorf("guardrail cluster: crossings %v and %d good designs; want partition_size warn and fail planted and a good design beside them", levels, good)
	}
	opts, err := JVMOpts(scs)
	if err != nil || !strings.Contains(opts, "-Dcassandra.settings.partition_size_fail_threshold=") {
		t.Errorf("JVMOpts = %q, %v; want the fail level among the node options", opts, err)
	}
}
