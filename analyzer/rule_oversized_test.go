package analyzer

import (
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

func TestRuleOversizedPartition(t *testing.T) {
	type want struct {
		sev        finding.Severity
		value, thr float64
		key        string
	}
	cases := []struct {
		name   string
		engine model.Engine
		max    int64
		mean   int64
		top    []model.TopPartition
		large  []model.LargePartition
		want   *want
		inText []string // substrings of summary + advice
	}{
		{name: "just under warning", max: 50*mib - 1},
		// 50 MiB is the bucket 41.4–49.65 MiB rounded up: maybe over, maybe not.
		{name: "a bucket across the warning size", max: 50 * mib, mean: 40 * mib,
			want:   &want{finding.SeverityInfo, 50 * testMiB, 50 * testMiB, ""},
			inText: []string{"is 41.4 MiB to 50 MiB", "it may be over the 50 MiB warning size or under it"}},
		{name: "at warning", max: 72 * mib, mean: 40 * mib,
			want:   &want{finding.SeverityWarning, 72 * testMiB, 50 * testMiB, ""},
			inText: []string{"is 59.6 MiB to 72 MiB (max_partition_size: a histogram bucket", "uniformly big", "add a shard column (0..2"}},
		{name: "a bucket across the critical size", max: 103 * mib, want: &want{finding.SeverityWarning, 103 * testMiB, 50 * testMiB, ""},
			inText: []string{"85.8 MiB to 103 MiB"}},
		{name: "at critical", max: 124 * mib, want: &want{finding.SeverityCritical, 124 * testMiB, 100 * testMiB, ""}},
		{name: "key named by top_partitions when it is itself large", max: 120 * mib, mean: 1 * mib,
			top: []model.TopPartition{
				{Keyspace: "ks", Table: "t", Type: "SIZES", Key: "big", Value: 110 * mib},
				{Keyspace: "ks", Table: "t", Type: "SIZES", Key: "mid", Value: 60 * mib},
				{Keyspace: "ks", Table: "t", Type: "SIZES", Key: "small", Value: 2 * mib},
			},
			want:   &want{finding.SeverityCritical, 120 * testMiB, 100 * testMiB, "big"},
			inText: []string{"key big measured 110 MiB", "2 keys at or over 50 MiB", "120× the mean: one outlier", "fix key big, not the whole model"}},
		{name: "a small key is not blamed", max: 72 * mib,
			top:  []model.TopPartition{{Keyspace: "ks", Table: "t", Type: "SIZES", Key: "small", Value: 2 * mib}},
			want: &want{finding.SeverityWarning, 72 * testMiB, 50 * testMiB, ""}},
		{name: "ScyllaDB without REST: the large_partitions key gives the size", engine: model.EngineScyllaDB,
			large: []model.LargePartition{{Keyspace: "ks", Table: "t", SSTable: "me-1-big-Data.db", SizeBytes: 1100 * mib, Key: "k1", Rows: 10}},
			want:  &want{finding.SeverityCritical, 1100 * testMiB, 100 * testMiB, "k1"}},
		{name: "system tables are not judged", max: 0,
			top: []model.TopPartition{{Keyspace: "system", Table: "x", Type: "SIZES", Key: "k", Value: 500 * mib}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 3).keyspace("ks", simple("3"), table("t", pk("id", "text", 0), ck("seq", "int", 0, "asc")))
			if c.engine != "" {
				b.s.Engine = c.engine
			}
			b.stats("h01", "ks", "t", model.TableStats{MaxPartitionBytes: c.max, MeanPartitionBytes: c.mean, PartitionsEstimate: 100})
			b.stats("h02", "ks", "t", model.TableStats{MaxPartitionBytes: 1 * mib})
			nd := b.nodeData("h01")
			nd.TopPartitions, nd.LargePartitions = c.top, c.large
			fs := ruleOversizedPartition(analysisOf(t, b.s))
			if c.want == nil {
				if len(fs) != 0 {
					t.Fatalf("want none, got %+v", fs)
				}
				return
			}
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %d: %+v", len(fs), fs)
			}
			f := fs[0]
			if f.Severity != c.want.sev || f.Value != c.want.value || f.Threshold != c.want.thr || f.PartitionKey != c.want.key ||
				f.Unit != finding.UnitBytes || f.Node != "10.0.0.1" || f.DC != "dc1" || f.Keyspace != "ks" || f.Table != "t" {
				t.Fatalf("got %v %g/%g %s key %q on %s, want %+v", f.Severity, f.Value, f.Threshold, f.Unit, f.PartitionKey, f.Node, *c.want)
			}
			text := f.Summary + " | " + f.Advice
			for _, s := range c.inText {
				if !strings.Contains(text, s) {
					t.Errorf("missing %q in %q", s, text)
				}
			}
		})
	}
}

func TestOversizedAdviceUsesMeasuredGrowth(t *testing.T) {
	b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"),
		table("readings", pk("sensor_id", "text", 0), ck("ts", "timestamp", 0, "desc"), col("value", "double")))
	b.stats("h01", "ks", "readings", model.TableStats{MaxPartitionBytes: 480 * mib})
	h := history.New(history.Limits{})
	// 16 MiB a day for two weeks: 224 MiB, more than one bucket step (~20 %).
	h.Sizes["ks.readings"] = series(t0.Unix(), 96, 12600, func(age float64) float64 { return 480*mib - 16*mib*age/86400 })
	fs := ruleOversizedPartition(analysisWith(t, b.s, h, DefaultThresholds()))
	if len(fs) != 1 {
		t.Fatalf("want one finding, got %+v", fs)
	}
	want := "add a day bucket of ts to the partition key (sensor_id): largest partition 480 MiB → ~16 MiB (measured growth 16 MiB/day"
	if !strings.Contains(fs[0].Advice, want) {
		t.Fatalf("advice %q\nwant it to contain %q", fs[0].Advice, want)
	}
}

// TestSuggestedKeyIsTheAdvisedBucket: where the advice proposes a time
// bucket of a width, the finding carries that key as partmon advise reads
// it; a shard, an unsized bucket or a name CQL must quote gives none.
func TestSuggestedKeyIsTheAdvisedBucket(t *testing.T) {
	readings := table("readings", pk("sensor_id", "text", 0), ck("ts", "timestamp", 0, "desc"), col("value", "double"))
	twoPart := table("readings", pk("site", "text", 0), pk("sensor_id", "text", 1), ck("ts", "timestamp", 0, "desc"), ck("seq", "int", 1, "asc"), col("value", "double"))
	quoted := table("readings", pk("Sensor", "text", 0), ck("ts", "timestamp", 0, "desc"), col("value", "double"))
	noTime := table("readings", pk("sensor_id", "text", 0), ck("seq", "int", 0, "asc"), col("value", "double"))
	cases := []struct {
		name      string
		tbl       model.Table
		mibPerDay float64 // 0: no history
		want      string
	}{
		{"a day bucket, measured growth", readings, 16, "((sensor_id, bucket(ts, 1d)), ts)"},
		{"two partition and two clustering columns", twoPart, 16, "((site, sensor_id, bucket(ts, 1d)), ts, seq)"},
		{"an hour bucket for fast growth", readings, 300, "((sensor_id, bucket(ts, 1h)), ts)"},
		{"growth unknown: no width, no key", readings, 0, ""},
		{"a name CQL quotes", quoted, 16, ""},
		{"no time column: a shard, no key", noTime, 16, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newSnap().ring("dc1", 1).keyspace("ks", simple("1"), c.tbl)
			b.stats("h01", "ks", "readings", model.TableStats{MaxPartitionBytes: 480 * mib})
			h := history.New(history.Limits{})
			if c.mibPerDay > 0 {
				h.Sizes["ks.readings"] = series(t0.Unix(), 96, 12600, func(age float64) float64 { return 480*mib - c.mibPerDay*mib*age/86400 })
			}
			fs := ruleOversizedPartition(analysisWith(t, b.s, h, DefaultThresholds()))
			if len(fs) != 1 {
				t.Fatalf("want one finding, got %+v", fs)
			}
			if fs[0].SuggestedKey != c.want {
				t.Fatalf("suggested key %q, want %q (advice %q)", fs[0].SuggestedKey, c.want, fs[0].Advice)
			}
		})
	}
}

func TestChooseTimeBucket(t *testing.T) {
	target := 25 * testMiB
	cases := []struct {
		perDay   float64 // MiB
		want     string
		wantSize float64 // MiB
	}{
		{0.5, "month", 15},
		{0.84, "week", 5.88}, // a month would hold 25.2 MiB, just over
		{16, "day", 16},
		{25, "day", 25},   // exactly the target fits
		{600, "hour", 25}, // 600/24 = 25
		{1e6, "", 0},      // even a minute is too much
		{0, "", 0},
	}
	for _, c := range cases {
		b, size, ok := chooseTimeBucket(c.perDay*testMiB/86400, target)
		if b.name != c.want || ok != (c.want != "") || (ok && abs(size/testMiB-c.wantSize) > 1e-6) {
			t.Errorf("%g MiB/day: got %s %.3f MiB ok %v, want %s %g MiB", c.perDay, b.name, size/testMiB, ok, c.want, c.wantSize)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
