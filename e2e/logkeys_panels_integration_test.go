//go:build integration

package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/dashboards"
	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// keyPanels are the overview panels that list partition keys by size and by
// tombstones, and the fixture problem each must name.
var keyPanels = map[string]string{
	"Largest partition keys (top-K)": analyzer.KindOversizedPartition,
	"Tombstone-heavy partitions":     analyzer.KindTombstoneHeavy,
}

// TestKeyPanelsFromLogs: with system.top_partitions left unread (it is
// filled only by a repair), the overview's key panels still name the
// fixtures' oversized and tombstone-heavy keys, from Cassandra's own log
// lines, on a real Prometheus scraping a real partmon (cluster mode, the
// fixture cluster, read only). Each panel's every query returns the key.
func TestKeyPanelsFromLogs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	truth, err := testcluster.LoadTruth()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := partmonBinary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	root := testkit.Root(t)
	cfg := filepath.Join(t.TempDir(), "partmon.yml")
	// The scrape's cluster label is the one partmon publishes (honor_labels).
	const cluster = "logkeys"
	conf := "cluster: " + cluster + "\ncollector:\n  sources:\n    top_partitions: {enabled: false}\nanalysis:\n  schedule: \"@every 5s\"\n"
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	opts := promtest.Options{LogDir: filepath.Join(root, "test-artifacts", "e2e-logkeys")}
	addr := testkit.FreeAddr(t)
	p := promtest.Start(t, "partmon", opts, bin, "run", "--config.file", cfg, "--mode", "cluster",
		"--hosts", strings.Join(testcluster.Hosts(), ","), "--web.listen-address", addr)
	prom := promtest.StartPrometheus(t, fmt.Sprintf(`global:
  scrape_interval: 2s
scrape_configs:
  - job_name: partmon
    honor_labels: true
    static_configs:
      - targets: [%q]
        labels: {cluster: %q}
`, addr, cluster), opts)

	qs, err := dashboards.Queries(filepath.Join(root, "dashboards"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"cluster": cluster, "dc": ".*", "rack": ".*", "node": ".*", "keyspace": ".*", "table": ".*"}
	checked := map[string]int{}
	for _, q := range qs {
		kind, ok := keyPanels[q.Panel]
		if !ok || q.File != "partmon-overview.json" {
			continue
		}
		want := problems(t, truth, kind)[0]
		expr, err := q.Expand(vars)
		if err != nil {
			t.Fatal(err)
		}
		var last string
		found := promtest.Eventually(2*time.Minute, func() bool {
			if exited, err := p.Exited(); exited {
				t.Fatalf("partmon exited: %v\n%s", err, p.Output())
			}
			ss, err := prom.QueryVector(expr)
			if err != nil {
				last = err.Error()
				return false
			}
			last = fmt.Sprintf("%d series", len(ss))
			for _, s := range ss {
				if s.Metric["keyspace"] == want.Keyspace && s.Metric["table"] == want.Table && s.Metric["partition_key"] == want.Key {
					return true
				}
			}
			return false
		})
		if !found {
			t.Errorf("%s: no series for %s.%s key %q (%s) with top_partitions unread", q, want.Keyspace, want.Table, want.Key, last)
		}
		checked[q.Panel]++
	}
	for panel := range keyPanels {
		if checked[panel] == 0 {
			t.Errorf("the overview has no panel %q any more: this test checks nothing of it", panel)
		}
	}
	t.Logf("queries checked per panel: %v", checked)
}
