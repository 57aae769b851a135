package analyzer

import (
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

// logSnap is a 3-node ring with ks.t (partition key id) where node h01's
// log named the given evidence and its max_partition_size is maxBytes.
func logSnap(maxBytes int64, evs ...model.LogEvidence) *model.Snapshot {
	b := newSnap().ring("dc1", 3).keyspace("ks", simple("3"), table("t", pk("id", "text", 0), ck("seq", "int", 0, "asc")))
	b.stats("h01", "ks", "t", model.TableStats{MaxPartitionBytes: maxBytes, MeanPartitionBytes: 1 * mib, PartitionsEstimate: 1000,
		TombstonesPerRead: model.Distribution{Count: 10, P99: 3}, RowsPerRead: model.Distribution{Count: 10, P99: 5}})
	b.nodeData("h01").LogEvidence = evs
	return b.s
}

func ev(kind model.LogEvidenceKind, key string, value, count int64) model.LogEvidence {
	return model.LogEvidence{Kind: kind, Keyspace: "ks", Table: "t", Key: key, Value: value, Count: count,
		First: t0.Add(-time.Hour), Last: t0.Add(-10 * time.Minute), Where: "system_views.system_logs"}
}

func TestLogEvidenceNamesTheOversizedKey(t *testing.T) {
	size := ev(model.LogPartitionSize, "big", 117*mib, 2)
	size.Threshold = 50 * mib
	cases := []struct {
		name    string
		max     int64
		evs     []model.LogEvidence
		wantKey string
		wantSev finding.Severity
		inText  []string
	}{
		{name: "guardrail names the key of a large table", max: 120 * mib, evs: []model.LogEvidence{size}, wantKey: "big", wantSev: finding.SeverityCritical,
			inText: []string{"key big measured 117 MiB by system_views.system_logs", "partition_size guardrail (threshold 50 MiB)", "logged by 10.0.0.1 (system_views.system_logs) 2 times", "last 10 minutes before this report"}},
		{name: "a logged key below the warning size is not blamed", max: 72 * mib, evs: []model.LogEvidence{ev(model.LogPartitionSize, "mid", 10*mib, 1)}, wantSev: finding.SeverityWarning},
		{name: "the log's size counts when max_partition_size lags", max: 1 * mib, evs: []model.LogEvidence{size}, wantKey: "big", wantSev: finding.SeverityCritical},
		{name: "4.x compaction warning from a log file", max: 120 * mib,
			evs:     []model.LogEvidence{{Kind: model.LogPartitionSize, Keyspace: "ks", Table: "t", Key: "big", Value: 112 * mib, Count: 1, First: t0, Last: t0, Where: "/var/log/cassandra/system.log"}},
			wantKey: "big", wantSev: finding.SeverityCritical, inText: []string{"by log:system.log", `"Writing large partition" warning (compaction_large_partition_warning_threshold)`, "(/var/log/cassandra/system.log) once"}},
		{name: "other kinds do not measure size", max: 72 * mib, evs: []model.LogEvidence{ev(model.LogTombstoneWarning, "big", 500*mib, 1)}, wantSev: finding.SeverityWarning},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := ruleOversizedPartition(analysisOf(t, logSnap(c.max, c.evs...)))
			if len(fs) != 1 {
				t.Fatalf("got %d findings, want 1: %+v", len(fs), fs)
			}
			f := fs[0]
			if f.PartitionKey != c.wantKey || f.Severity != c.wantSev {
				t.Fatalf("key %q severity %v, want %q %v: %s", f.PartitionKey, f.Severity, c.wantKey, c.wantSev, f.Summary)
			}
			for _, s := range c.inText {
				if !strings.Contains(f.Summary, s) {
					t.Errorf("summary lacks %q:\n%s", s, f.Summary)
				}
			}
		})
	}
}

func TestLogEvidenceTombstoneKeys(t *testing.T) {
	warn := ev(model.LogTombstoneWarning, "jobs", 19995, 12)
	warn.LiveRows = 5
	abort := ev(model.LogTombstoneAbort, "doomed", 100001, 1)
	abort.Failure = true
	written := ev(model.LogPartitionTombstones, "jobs", 19995, 1)
	small := ev(model.LogTombstoneWarning, "few", 999, 3)
	tokenOnly := ev(model.LogTombstoneWarning, "", 50000, 1)
	tokenOnly.Token = "-42"
	cases := []struct {
		name string
		evs  []model.LogEvidence
		top  []model.TopPartition
		want map[string]finding.Severity // key → severity of its finding
		text map[string][]string
	}{
		{name: "tombstone warnings name the key", evs: []model.LogEvidence{warn, written},
			want: map[string]finding.Severity{"jobs": finding.SeverityCritical},
			text: map[string][]string{"jobs": {"reads scanned up to 19,995 tombstones (with 5 live rows)", "12 times", "an sstable write held 19,995 tombstones"}}},
		{name: "an aborted read is critical", evs: []model.LogEvidence{abort},
			want: map[string]finding.Severity{"doomed": finding.SeverityCritical},
			text: map[string][]string{"doomed": {"a read was aborted at tombstone_failure_threshold", "reads of this partition fail now"}}},
		{name: "under the warning level, and token-only evidence, name no key", evs: []model.LogEvidence{small, tokenOnly}, want: map[string]finding.Severity{}},
		{name: "a key top_partitions already lists gets one finding with both sources",
			evs: []model.LogEvidence{abort}, top: []model.TopPartition{{Keyspace: "ks", Table: "t", Type: "TOMBSTONES", Key: "doomed", Value: 5000}},
			want: map[string]finding.Severity{"doomed": finding.SeverityCritical},
			text: map[string][]string{"doomed": {"holds 5,000 tombstones", "Cassandra's log: a read was aborted"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := logSnap(1*mib, c.evs...)
			s.PerNode["h01"].TopPartitions = c.top
			got := map[string]finding.Finding{}
			for _, f := range ruleTombstoneHeavy(analysisOf(t, s)) {
				if f.PartitionKey == "" {
					continue
				}
				if _, dup := got[f.PartitionKey]; dup {
					t.Fatalf("two findings for key %s", f.PartitionKey)
				}
				got[f.PartitionKey] = f
			}
			if len(got) != len(c.want) {
				t.Fatalf("findings for keys %v, want %v", keysOf(got), c.want)
			}
			for key, sev := range c.want {
				f, ok := got[key]
				if !ok || f.Severity != sev {
					t.Fatalf("key %s: %+v, want severity %v", key, f, sev)
				}
				for _, s := range c.text[key] {
					if !strings.Contains(f.Summary+" "+f.Advice, s) {
						t.Errorf("key %s lacks %q:\n%s\n%s", key, s, f.Summary, f.Advice)
					}
				}
			}
		})
	}
}

func keysOf(m map[string]finding.Finding) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestLogEvidenceSlowReadsFeedHotPartition(t *testing.T) {
	hot := ev(model.LogSlowRead, "hot", 14, 14)
	hot.MaxMillis, hot.Threshold = 910, 500
	warm := ev(model.LogSlowRead, "warm", 2, 2)
	twice := ev(model.LogSlowRead, "rare", 2, 2)
	cases := []struct {
		name    string
		evs     []model.LogEvidence
		hotKeys []model.HotPartition
		want    []string
		text    []string
	}{
		{name: "a key with most of the slow reads", evs: []model.LogEvidence{hot, warm}, want: []string{"hot"},
			text: []string{"takes 88 % of the reads of ks.t that Cassandra logged as slow on 10.0.0.1 (14 of 16, longest 910ms, over slow_query_log_timeout 500ms", "not of all operations"}},
		{name: "two slow reads are not repeated", evs: []model.LogEvidence{twice}},
		{name: "a sampled hot key is not reported twice", evs: []model.LogEvidence{hot},
			hotKeys: []model.HotPartition{{Keyspace: "ks", Table: "t", Key: "hot", Op: "read", Count: 900, Total: 1000, Window: 10, Source: "nodetool"}},
			want:    []string{"hot"}, text: []string{"sampled reads"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := logSnap(1*mib, c.evs...)
			s.PerNode["h01"].HotPartitions = c.hotKeys
			fs := ruleHotPartition(analysisOf(t, s))
			var keys []string
			for _, f := range fs {
				keys = append(keys, f.PartitionKey)
			}
			if strings.Join(keys, ",") != strings.Join(c.want, ",") {
				t.Fatalf("hot keys %v, want %v", keys, c.want)
			}
			for _, s := range c.text {
				if !strings.Contains(fs[0].Summary, s) {
					t.Errorf("summary lacks %q:\n%s", s, fs[0].Summary)
				}
			}
		})
	}
}

func TestLogEvidenceSlowReadsOfATombstoneKeySayWhy(t *testing.T) {
	slow := ev(model.LogSlowRead, "jobs", 5, 5)
	tomb := ev(model.LogTombstoneWarning, "jobs", 19995, 5)
	fs := ruleHotPartition(analysisOf(t, logSnap(1*mib, slow, tomb)))
	if len(fs) != 1 || !strings.Contains(fs[0].Advice, "it holds tombstones (19,995 scanned by one read") {
		t.Fatalf("findings %+v, want one whose advice points at the tombstones", fs)
	}
}
