//go:build integration

package analyzer_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"
	"go.uber.org/zap/zaptest"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/tools/testcluster"
)

// The keyspaces of TestSkewOnAFreshRing: one at RF 3 holding most of the
// data, one at RF 1 beside it, in the one DC.
const (
	skewBig   = "pm_skew_big"
	skewSmall = "pm_skew_small"
)

// On a fresh 3-node ring of one DC (random vnode tokens), two keyspaces at
// RF 3 and RF 1 hold a few MB. The truth planted:
//   - one node flushed while the others keep their rows in memtables: its
//     load (sstables only) reads well above the warning skew, on a few MB.
//     partmon says at most info, its advice kept (load_skew_min_mean_bytes);
//   - every node flushed: the RF 1 keyspace's ownership is uneven (random
//     tokens), and with the ownership thresholds lowered to read the advice
//     every finding of the DC names the one allocator factor 3, the RF of
//     the keyspace holding the most data, the RF 1 keyspace's advice saying
//     why its skew stays. The RF 3 keyspace (every node holds it all) stays
//     silent throughout, as does the load once every node has flushed.
//
// It writes and flushes one node alone, so it runs only on a cluster of its
// own (scripts/test-side.sh's skew step): on a cluster holding other
// keyspaces it skips, saying so.
func TestSkewOnAFreshRing(t *testing.T) {
	hosts := testcluster.Hosts()
	s := testcluster.Session(t, hosts[0])
	if others := userKeyspaces(t, s); len(others) > 0 || len(hosts) != 3 {
		t.Skipf("needs a fresh 3-node cluster of its own (it writes and flushes one node alone); %d hosts, keyspaces %v: "+
			"scripts/test-side.sh's skew step starts one", len(hosts), others)
	}
	var dc string
	if err := s.Query("SELECT data_center FROM system.local").Scan(&dc); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = s.Query("DROP KEYSPACE IF EXISTS " + skewBig).Exec()
		_ = s.Query("DROP KEYSPACE IF EXISTS " + skewSmall).Exec()
	})
	// Random bytes do not compress: 300 rows of 8 KiB at RF 3 and 100 at RF 1.
	for ks, rows := range map[string]int{skewBig: 300, skewSmall: 100} {
		rf := map[string]int{skewBig: 3, skewSmall: 1}[ks]
		for _, q := range []string{
			fmt.Sprintf("CREATE KEYSPACE %s WITH replication = {'class': 'NetworkTopologyStrategy', '%s': %d}", ks, dc, rf),
			"CREATE TABLE " + ks + ".kv (k int PRIMARY KEY, v blob)",
		} {
			if err := s.Query(q).Exec(); err != nil {
				t.Fatal(err)
			}
		}
		blob := make([]byte, 8<<10)
		for k := 0; k < rows; k++ {
			_, _ = rand.Read(blob)
			if err := s.Query("INSERT INTO "+ks+".kv (k, v) VALUES (?, ?)", k, blob).Exec(); err != nil {
				t.Fatal(err)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	coll, err := collector.New(collector.Config{Hosts: hosts, Mode: collector.ModeCluster}, zaptest.NewLogger(t).Named("collector"))
	if err != nil {
		t.Fatal(err)
	}
	defer coll.Close()
	th := analyzer.DefaultThresholds()
	th.OwnershipSkewWarning, th.OwnershipSkewCritical = 1.0001, 1.0002 // every uneven node, to read the advice
	analyze := func() *analyzer.Report {
		if err := coll.CollectAll(ctx); err != nil {
			t.Logf("collection incomplete: %v", err)
		}
		return analyzer.Analyze(coll.Snapshot(), history.New(history.Limits{}), th)
	}

	// One node flushed: its load grows once gossip carries it (every 60 s).
	for _, ks := range []string{skewBig, skewSmall} {
		if out, err := nodetoolRetried(ctx, 1, "flush", ks); err != nil {
			t.Fatalf("nodetool flush %s on node 1: %v\n%s", ks, err, out)
		}
	}
	var r *analyzer.Report
	for deadline := time.Now().Add(150 * time.Second); ; time.Sleep(10 * time.Second) {
		r = analyze()
		if skew := nodeLoadSkew(r, hosts[0]); skew >= th.LoadSkewWarning {
			t.Logf("node 1 flushed alone: %.2f× the %s mean (loads %v)", skew, dc, nodeLoads(r))
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("node 1 flushed alone never read %.2f× the mean load: the premise did not hold (loads %v)", th.LoadSkewWarning, nodeLoads(r))
		}
	}
	checkLoadSkewQuiet(t, r, hosts[0])
	checkRF3Silent(t, r)

	// Every node flushed: the one allocator factor of the DC.
	for n := 2; n <= len(hosts); n++ {
		for _, ks := range []string{skewBig, skewSmall} {
			if out, err := nodetoolRetried(ctx, n, "flush", ks); err != nil {
				t.Fatalf("nodetool flush %s on node %d: %v\n%s", ks, n, err, out)
			}
		}
	}
	r = analyze()
	checkRF3Silent(t, r)
	small := 0
	for _, f := range r.Findings {
		if f.Kind == analyzer.KindLoadSkew && f.Severity > finding.SeverityInfo {
			t.Errorf("every node flushed, a few MB: %s %s: %s", f.Severity, f.Kind, f.Summary)
		}
		if f.Kind != analyzer.KindOwnershipSkew || f.DC != dc {
			continue
		}
		if got := allocatorFactors(f.Advice); len(got) != 1 || got[0] != "3" {
			t.Errorf("%s on %s names allocator factors %v, want 3 alone (%s holds the most data): %s", f.Keyspace, f.Node, got, skewBig, f.Advice)
		}
		if f.Keyspace == skewSmall {
			small++
			if want := skewSmall + " has RF 1: tokens allocated for RF 3"; !strings.Contains(f.Advice, want) {
				t.Errorf("%s's advice lacks %q: %s", skewSmall, want, f.Advice)
			}
		}
	}
	if small == 0 {
		t.Fatalf("no ownership_skew of %s at %.4f× on random tokens: the premise did not hold (%+v)", skewSmall, th.OwnershipSkewWarning, r.Ownership)
	}
}

// checkLoadSkewQuiet: the node flushed alone reads at most info, with its advice.
func checkLoadSkewQuiet(t *testing.T, r *analyzer.Report, flushed string) {
	t.Helper()
	info := false
	for _, f := range r.Findings {
		if f.Kind != analyzer.KindLoadSkew {
			continue
		}
		if f.Severity > finding.SeverityInfo {
			t.Errorf("a few MB, one node flushed: %s %s on %s: %s", f.Severity, f.Kind, f.Node, f.Summary)
		}
		if f.Node == flushed && f.Advice != "" && strings.Contains(f.Summary, "load_skew_min_mean_bytes") {
			info = true
		}
	}
	if !info {
		t.Errorf("no info load_skew on %s saying why it is only info, with its advice", flushed)
	}
}

// checkRF3Silent: every node holds all of the RF 3 keyspace: no ownership skew.
func checkRF3Silent(t *testing.T, r *analyzer.Report) {
	t.Helper()
	for _, f := range r.Findings {
		if f.Keyspace == skewBig {
			t.Errorf("%s (RF 3 on 3 nodes) got %s %s: %s", skewBig, f.Severity, f.Kind, f.Summary)
		}
	}
}

func nodeLoadSkew(r *analyzer.Report, address string) float64 {
	for _, n := range r.Nodes {
		if n.Address == address {
			return n.LoadSkew
		}
	}
	return 0
}

func nodeLoads(r *analyzer.Report) map[string]float64 {
	out := map[string]float64{}
	for _, n := range r.Nodes {
		out[n.Address] = n.LoadBytes
	}
	return out
}

// allocatorFactors are the allocate_tokens_for_local_replication_factor
// values an advice names.
func allocatorFactors(advice string) []string {
	const key = "allocate_tokens_for_local_replication_factor: "
	var out []string
	for rest := advice; ; {
		i := strings.Index(rest, key)
		if i < 0 {
			return out
		}
		rest = rest[i+len(key):]
		end := strings.IndexFunc(rest, func(r rune) bool { return r < '0' || r > '9' })
		if end < 0 {
			end = len(rest)
		}
		out = append(out, rest[:end])
	}
}

// userKeyspaces are the cluster's keyspaces other than Cassandra's own and
// this test's (dropped first: a run stopped early leaves them).
func userKeyspaces(t *testing.T, s *gocql.Session) []string {
	t.Helper()
	for _, ks := range []string{skewBig, skewSmall} {
		if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			t.Fatal(err)
		}
	}
	var out []string
	var name string
	it := s.Query("SELECT keyspace_name FROM system_schema.keyspaces").Iter()
	for it.Scan(&name) {
		if !strings.HasPrefix(name, "system") {
			out = append(out, name)
		}
	}
	if err := it.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}
