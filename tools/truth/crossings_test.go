package truth

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// writeScenario plants collection_size's fail crossing of a set written
// through an ordinary role.
func writeScenario() *Scenario {
	return &Scenario{
		Name: "cart", Keyspace: "truth_w", Design: DesignBad, Cluster: ClusterGuardrail,
		Guardrails: map[string]string{"collection_size_warn_threshold": "4KiB", "collection_size_fail_threshold": "8KiB"},
		Tables:     []Table{{Name: "carts", Partitions: 10, Rows: 1, CQL: "CREATE TABLE {ks}.carts (id text PRIMARY KEY, items set<text>)"}},
		CollectionWrites: []CollectionWrite{{Table: "carts", Partition: 3, Column: "items", FirstItems: 100, ItemsPerWrite: 4,
			ItemSize: 20, Every: 10 * time.Second}},
		Crossings: []CrossingTruth{{Table: "carts", Partition: 3, Column: "items", Guardrail: "collection_size", Level: "fail",
			Tolerance: 17 * time.Second, Why: "w"}},
	}
}

func TestValidateWriteCrossings(t *testing.T) {
	cases := []struct {
		name   string
		change func(*Scenario)
		want   string // "" valid
	}{
		{"valid", func(*Scenario) {}, ""},
		{"bounded", func(s *Scenario) { s.CollectionWrites[0].MaxItems = 100 }, ""},
		{"on another cluster", func(s *Scenario) { s.Cluster, s.Guardrails = ClusterSingle, nil }, "ordinary role on a cluster with authentication"},
		{"warn level", func(s *Scenario) { s.Crossings[0].Level = "warn" }, "only a write guardrail's fail level"},
		{"column not written", func(s *Scenario) { s.Crossings[0].Column = "other" }, "do not write that column"},
		{"row not written", func(s *Scenario) { s.Crossings[0].Partition = 4 }, "do not write that column of that partition"},
		{"level not set", func(s *Scenario) { delete(s.Guardrails, "collection_size_fail_threshold") }, "does not set collection_size_fail_threshold"},
		{"not a set<text>", func(s *Scenario) { s.Tables[0].CQL = "CREATE TABLE {ks}.carts (id text PRIMARY KEY, items list<int>)" }, "want a set<text> column"},
		{"no items", func(s *Scenario) { s.CollectionWrites[0].FirstItems = 0 }, "first_items > 0"},
		{"bound under the first write", func(s *Scenario) { s.CollectionWrites[0].MaxItems = 50 }, "max_items 0 or at least first_items"},
		{"tiny items", func(s *Scenario) { s.CollectionWrites[0].ItemSize = 4 }, "item_size of 8 bytes"},
		{"a partition guardrail with a column", func(s *Scenario) {
			s.Grow = []Grow{{Table: "carts", Partition: 3, RowsPerSecond: 1}}
			s.Guardrails["partition_size_fail_threshold"] = "24MiB"
			s.Crossings[0].Guardrail = "partition_size"
		}, "names no column"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := writeScenario()
			c.change(s)
			got := ""
			for _, e := range s.validateGuardrails() {
				got += e.Error() + "; "
			}
			if c.want == "" && got != "" || c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("errors %q, want %q", got, c.want)
			}
		})
	}
}

func TestCollectionItems(t *testing.T) {
	cases := []struct {
		name        string
		cw          CollectionWrite
		step        int
		n           int
		first, last string
	}{
		{"first write", CollectionWrite{FirstItems: 100, ItemsPerWrite: 4, ItemSize: 8}, 0, 100, "00000000", "00000099"},
		{"grown", CollectionWrite{FirstItems: 100, ItemsPerWrite: 4, ItemSize: 8}, 32, 228, "00000000", "00000227"},
		{"bounded keeps the newest", CollectionWrite{FirstItems: 10, ItemsPerWrite: 1, MaxItems: 10, ItemSize: 20}, 5, 10,
			"00000000000000000005", "00000000000000000014"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := c.cw.items(c.step)
			if len(got) != c.n || got[0] != c.first || got[len(got)-1] != c.last || len(got[0]) != c.cw.ItemSize {
				t.Errorf("items(%d) = %d items %q … %q, want %d %q … %q", c.step, len(got), got[0], got[len(got)-1], c.n, c.first, c.last)
			}
		})
	}
}

// Cassandra 5.0.8's request-path lines and the client's error (the
// formats of docs/sources.md#write-guardrail-lines); the sstable form,
// logged at a flush where nothing is refused, is not a request-path line.
func TestWriteGuardrailLines(t *testing.T) {
	cases := []struct {
		line  string
		id    string // "" not read
		value float64
	}{
		{"WARN  [Native-Transport-Requests-2] 2026-12-07 13:10:55,782 Guardrail - Guardrail collection_size violated: Detected collection cart_items of size 4464, this exceeds the warning threshold of 4096.",
			writeCrossingID("cart_items", "collection_size", "warn"), 4464},
		{"WARN  [Native-Transport-Requests-2] 2026-12-07 13:10:55,781 Guardrail - Guardrail items_per_collection violated: Detected collection cart_items with 124 items, this exceeds the warning threshold of 120.",
			writeCrossingID("cart_items", "items_per_collection", "warn"), 124},
		{"ERROR [Native-Transport-Requests-1] 2026-12-07 13:13:05,010 Guardrail - Guardrail collection_size violated: Detected collection cart_items of size 8208, this exceeds the failure threshold of 8192.",
			writeCrossingID("cart_items", "collection_size", "fail"), 8208},
		{"WARN  [Native-Transport-Requests-3] 2026-12-07 13:13:05,010 Guardrail - Guardrail column_value_size violated: Value of column 'payload' has size 70000, this exceeds the warning threshold of 65536.",
			writeCrossingID("payload", "column_value_size", "warn"), 70000},
		{"ERROR [MemtableFlushWriter:1] 2026-12-07 13:14:00,000 Guardrail - Guardrail collection_size violated: Detected collection cart_items in row 'cart-001234' in table truth_guard_carts.carts of size 9000, this exceeds the failure threshold of 8192.", "", 0},
		{"WARN  [CompactionExecutor:2] 2026-12-05 11:41:02,500 Guardrail - Guardrail partition_size violated: Partition truth_g.t:acct-3 on sstable /d/nb-4-big-Data.db has size 17000000, this exceeds the warning threshold of 16777216.", "", 0},
	}
	for _, c := range cases {
		id, _, v, ok := loggedWriteLine(c.line)
		if ok != (c.id != "") || id != c.id || v != c.value {
			t.Errorf("%s:\ngot %q %g %v, want %q %g", c.line, id, v, ok, c.id, c.value)
		}
	}
	errMsg := "Guardrail collection_size violated: Detected collection cart_items of size 8208, this exceeds the failure threshold of 8192."
	if g, col, v, ok := parseRefusal(errMsg); !ok || g != "collection_size" || col != "cart_items" || v != 8208 {
		t.Errorf("parseRefusal = %s %s %g %v", g, col, v, ok)
	}
	if _, _, _, ok := parseRefusal("Guardrail collection_size violated: Detected collection cart_items of size 4464, this exceeds the warning threshold of 4096."); ok {
		t.Error("a warning is no refusal")
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
	n2 := `WARN  [Native-Transport-Requests-2] 2026-12-05 11:41:30,782 Guardrail - Guardrail collection_size violated: Detected collection items of size 4176, this exceeds the warning threshold of 4096.
WARN  [Native-Transport-Requests-2] 2026-12-05 11:41:40,101 Guardrail - Guardrail collection_size violated: Detected collection items of size 4320, this exceeds the warning threshold of 4096.
WARN  [CompactionExecutor:1] 2026-12-05 11:40:59,000 Guardrail - Guardrail partition_size violated: Partition truth_g.t:acct-3 on sstable /d/nb-2-big-Data.db has size 16800000, this exceeds the warning threshold of 16777216. Too large partitions can cause performance problems.
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
		writeCrossingID("items", "collection_size", "warn"):          {"11:41:30.782", "10.0.0.2", 4176},
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

// A write guardrail's crossing: the column's forecast, naming the table,
// before the refused write and within the tolerance of it; the warn and
// fail lines are kept beside it.
func TestJudgeWriteCrossings(t *testing.T) {
	t0 := time.Date(2026, 12, 7, 13, 0, 0, 0, time.Local)
	refusedAt := t0.Add(5 * time.Minute)
	keyOf := func(_ *Scenario, _ string, p int) string { return fmt.Sprintf("cart-%d", p) }
	forecast := func(seenMin float64, column, table string, atFromRefusal time.Duration) ForecastSample {
		return ForecastSample{Seen: t0.Add(time.Duration(seenMin * float64(time.Minute))), Keyspace: "truth_w", Table: table, Column: column,
			Guardrail: "collection_size", Level: "fail", At: refusedAt.Add(atFromRefusal).Unix()}
	}
	logs := map[string]LoggedCrossing{
		writeCrossingID("items", "collection_size", "warn"): {At: t0.Add(40 * time.Second), Node: "n1", Value: 4176},
		writeCrossingID("items", "collection_size", "fail"): {At: refusedAt, Node: "n2", Value: 8208},
	}
	cases := []struct {
		name      string
		samples   []ForecastSample
		refused   bool
		found     bool
		note      string
		falseN    int
		lead, err time.Duration
	}{
		{"forecast within tolerance", []ForecastSample{forecast(3, "items", "carts", -8*time.Second), forecast(4, "items", "carts", -2*time.Second)}, true, true, "", 0, 2 * time.Minute, -8 * time.Second},
		{"beyond tolerance", []ForecastSample{forecast(3, "items", "carts", -30*time.Second)}, true, false, "beyond the tolerance", 0, 2 * time.Minute, -30 * time.Second},
		{"only after the refusal", []ForecastSample{forecast(5.5, "items", "carts", 0)}, true, false, "no forecast made before", 0, 0, 0},
		{"never refused", []ForecastSample{forecast(3, "items", "carts", 0)}, false, false, "no write was refused", 0, 0, 0},
		{"another column's forecast is false", []ForecastSample{forecast(3, "items", "carts", 0), forecast(3, "tags", "carts", 0)}, true, true, "", 1, 2 * time.Minute, 0},
		{"a partition's forecast is not the column's", []ForecastSample{{Seen: t0, Keyspace: "truth_w", Table: "carts", Guardrail: "collection_size", Level: "fail", At: refusedAt.Unix()}},
			true, false, "no forecast made before", 1, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			sc := writeScenario()
			refused := func(s *Scenario, ct CrossingTruth) *LoggedCrossing {
				if !c.refused || s != sc || ct.Column != "items" {
					return nil
				}
				return &LoggedCrossing{At: refusedAt, Node: "client", Value: 8208}
			}
			res, falses := judgeCrossings([]*Scenario{sc}, keyOf, refused, c.samples, logs)
			if len(res) != 1 {
				t.Fatalf("%d results, want 1", len(res))
			}
			r := res[0]
			if r.Found != c.found || !strings.Contains(r.Note, c.note) || len(falses) != c.falseN || r.Lead != c.lead || r.Error != c.err {
				t.Errorf("found %v note %q falses %d lead %s error %s; want %v %q %d %s %s", r.Found, r.Note, len(falses), r.Lead, r.Error, c.found, c.note, c.falseN, c.lead, c.err)
			}
			if r.Column != "items" || r.Key != "cart-3" || r.Warned == nil || r.Warned.Value != 4176 || r.FailLine == nil || r.FailLine.Node != "n2" {
				t.Errorf("result %+v: want column items of key cart-3, the first warn line and the node's fail line", r)
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
	levels, good, goodWrites := map[string]bool{}, 0, 0
	for _, s := range scs {
		if s.Design == DesignGood && len(s.Crossings) == 0 {
			good++
			goodWrites += len(s.CollectionWrites)
		}
		for _, c := range s.Crossings {
			levels[c.Guardrail+" "+c.Level] = true
		}
	}
	if !levels["partition_size warn"] || !levels["partition_size fail"] || !levels["collection_size fail"] || good < 2 || goodWrites == 0 {
		t.Errorf("guardrail cluster: crossings %v and %d good designs (%d writing collections); want partition_size warn and fail and "+
			"collection_size fail planted, and good designs beside them, one writing a collection", levels, good, goodWrites)
	}
	// Cassandra's write guardrail lines name the column only: partmon
	// decides the table when one table of the cluster has a column of
	// that name, so each written column's name is the cluster's only one.
	for _, s := range scs {
		for _, cw := range s.CollectionWrites {
			holders := 0
			for _, o := range scs {
				for _, tb := range o.Tables {
					if regexp.MustCompile(`\b` + cw.Column + `\s`).MatchString(tb.CQL) {
						holders++
					}
				}
			}
			if holders != 1 {
				t.Errorf("%s: column %s is in %d tables of the guardrail cluster, want 1", s.File, cw.Column, holders)
			}
		}
	}
	opts, err := JVMOpts(scs)
	if err != nil || !strings.Contains(opts, "-Dcassandra.settings.partition_size_fail_threshold=") {
		t.Errorf("JVMOpts = %q, %v; want the fail level among the node options", opts, err)
	}
}
