package truth

import (
	"os"
	"path/filepath"
	"testing"
)

// The inputs are real outputs of Cassandra 5.0.8's nodetool on the local
// cluster of deploy/local/cluster (tools/truth/testdata/README.md).
func readTestdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseTableStats(t *testing.T) {
	stats, err := parseTableStats(readTestdata(t, "tablestats_json.txt"))
	if err != nil {
		t.Fatal(err)
	}
	q, ok := stats["truth_job_queue.jobs_by_queue"]
	if !ok {
		t.Fatalf("no truth_job_queue.jobs_by_queue in %v", stats)
	}
	want := TableStat{MaxPartitionBytes: 88148, Partitions: 40, LocalReads: 341, SpaceLiveBytes: 852551,
		MaxTombstonesPerSlice: 3311, MaxLiveRowsPerSlice: 10}
	if q.MaxPartitionBytes != want.MaxPartitionBytes || q.Partitions != want.Partitions || q.LocalReads != want.LocalReads ||
		q.SpaceLiveBytes != want.SpaceLiveBytes || q.MaxTombstonesPerSlice != want.MaxTombstonesPerSlice || q.MaxLiveRowsPerSlice != want.MaxLiveRowsPerSlice {
		t.Errorf("jobs_by_queue %+v, want %+v", q, want)
	}
	if o := stats["truth_orders_country.orders_by_country"]; o.MaxPartitionBytes != 0 || o.Partitions != 0 {
		t.Errorf("a table the node holds nothing of: %+v", o)
	}
	if _, err := parseTableStats("Total number of tables: 1"); err == nil {
		t.Error("text output accepted as JSON")
	}
}

func TestParseHistograms(t *testing.T) {
	h, err := parseHistograms(readTestdata(t, "tablehistograms_orders.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if h.PartitionBytes.Max != 7007506 || h.PartitionBytes.Min != 29522 || h.Cells.Max != 219342 || h.Cells.P50 != 2299 {
		t.Errorf("histograms %+v", h)
	}
	empty, err := parseHistograms(readTestdata(t, "tablehistograms_no_sstables.txt"))
	if err != nil || empty.PartitionBytes.Max != 0 {
		t.Errorf("a node without sstables: %+v, %v", empty, err)
	}
	if _, err := parseHistograms("error: unknown table"); err == nil {
		t.Error("garbage accepted")
	}
}

func TestParseStatus(t *testing.T) {
	nodes, err := parseStatus(readTestdata(t, "status_keyspace.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(nodes) != 3 {
		t.Fatalf("%d nodes: %+v", len(nodes), nodes)
	}
	n := nodes[1]
	if n.Address != "127.0.0.62" || n.DC != "dc1" || n.Rack != "r2" || n.State != "UN" || n.Owns < 0.3329 || n.Owns > 0.3331 {
		t.Errorf("node line %+v", n)
	}
	if want := 33.18 * (1 << 20); n.LoadBytes < want-1 || n.LoadBytes > want+1 {
		t.Errorf("load %g, want %g", n.LoadBytes, want)
	}
	if skew, ok := ownershipSkew(nodes, "127.0.0.62"); !ok || skew < 0.999 || skew > 1.001 {
		t.Errorf("balanced ownership skew %g %v", skew, ok)
	}
	if skew, ok := loadSkew(nodes, "127.0.0.62"); !ok || skew < 1.288 || skew > 1.289 {
		t.Errorf("load skew %g (33.18 ÷ mean of 27.66, 33.18, 16.41 MiB)", skew)
	}
}

func TestParseProfile(t *testing.T) {
	p, err := parseProfile(readTestdata(t, "profileload_products_owner.txt"), "truth_products.products")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Reads) < 2 || p.Reads[0].Key != "SKU-000000" || p.Reads[0].Count != 144 {
		t.Fatalf("reads %+v", p.Reads)
	}
	share, total := p.Share("SKU-000000", true, false)
	if total < 144 || share <= 0.5 || share > 1 {
		t.Errorf("share %g of %d", share, total)
	}
	idle, err := parseProfile(readTestdata(t, "profileload_timeline.txt"), "truth_timeline.user_timeline")
	if err != nil || len(idle.Reads)+len(idle.Writes) != 0 {
		t.Errorf("idle sample: %+v, %v", idle, err)
	}
	if _, total := idle.Share("0", true, true); total != 0 {
		t.Errorf("idle sample has %d operations", total)
	}
}
