package analyzer

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
)

// withLogEvidence gives every node perNode log entries (the default
// logs.max_keys is 1,000) spread over the snapshot's tables: partition
// sizes, tombstone warnings and slow reads, as the logs source keeps them.
func withLogEvidence(s *model.Snapshot, perNode int) {
	var tables [][2]string
	for _, ks := range s.Schema.Keyspaces {
		for _, tb := range ks.Tables {
			tables = append(tables, [2]string{ks.Name, tb.Name})
		}
	}
	kinds := []model.LogEvidenceKind{model.LogPartitionSize, model.LogTombstoneWarning, model.LogSlowRead, model.LogPartitionTombstones}
	for i, n := range s.Nodes {
		nd := s.PerNode[n.HostID]
		for j := 0; j < perNode; j++ {
			tb := tables[(i*7+j)%len(tables)]
			nd.LogEvidence = append(nd.LogEvidence, model.LogEvidence{
				Kind: kinds[j%len(kinds)], Keyspace: tb[0], Table: tb[1], Key: fmt.Sprintf("key-%d", j%50),
				Value: int64(50+j%200) * mib, Count: int64(1 + j%5), First: t0.Add(-3600e9), Last: t0.Add(-60e9),
				Where: "system_views.system_logs", MaxMillis: 900, Threshold: 500,
			})
		}
	}
}

func benchAnalyzeLogs(b *testing.B, nodes, tables int) {
	s, h := syntheticCluster(nodes, tables)
	withLogEvidence(s, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	var r *Report
	for i := 0; i < b.N; i++ {
		r = Analyze(s, h, DefaultThresholds())
	}
	b.StopTimer()
	b.ReportMetric(float64((processCPU()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(len(r.Findings)), "findings")
}

// processCPU is the process's user and system time: on a shared machine
// the wall time says more about the neighbours than about the code.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// The doubling pair: twice the tables at the same nodes and log entries
// must cost at most ~2.3× (make bench reads the ratio).
func BenchmarkAnalyzeLogs1000Tables30Nodes(b *testing.B) { benchAnalyzeLogs(b, 30, 1000) }
func BenchmarkAnalyzeLogs2000Tables30Nodes(b *testing.B) { benchAnalyzeLogs(b, 30, 2000) }
func BenchmarkAnalyzeLogs1000Tables60Nodes(b *testing.B) { benchAnalyzeLogs(b, 60, 1000) }
