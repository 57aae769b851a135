package publish

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/internal/keys"
)

var secret = []byte("0123456789abcdef-test-secret")

const planted = "alice.secret@example.org"

func plantedReport() *analyzer.Report {
	f := finding.Finding{ID: "0011223344556677", Kind: "tombstone_heavy_partition", Keyspace: "shop", Table: "carts",
		PartitionKey: planted, Node: "10.0.0.1", Summary: "partition " + planted + " of shop.carts holds 5,000 tombstones",
		Advice: "read " + planted + " less often"}
	return &analyzer.Report{
		Cluster:       "c1",
		Findings:      []finding.Finding{f},
		Problems:      []analyzer.Problem{{Finding: f, Kinds: []string{f.Kind}, Evidence: []finding.Finding{f}}},
		TopPartitions: []analyzer.PartitionEntry{{Keyspace: "shop", Table: "carts", Key: planted, Nodes: []string{"10.0.0.1"}}},
		Notes:         []string{"statement: SELECT * FROM shop.carts WHERE id = '" + planted + "'"},
		Heat: &analyzer.HeatMaps{Maps: []analyzer.HeatMap{{Keyspace: "shop", Table: "carts",
			Keys: []analyzer.HeatKey{{Keyspace: "shop", Table: "carts", Key: planted, Token: 12345, OK: true}}}}},
	}
}

func TestShown(t *testing.T) {
	for _, mode := range []keys.Mode{keys.Hashed, keys.Omitted} {
		k := keys.New(mode, secret, 0)
		in := plantedReport()
		out := Shown(k, in)
		b, _ := json.Marshal(out)
		all := string(b) + fmt.Sprintf("%+v", *out.Heat)
		if strings.Contains(all, planted) {
			t.Errorf("%s: the planted key is in the redacted report: %s", mode, all)
		}
		if in.Findings[0].PartitionKey != planted || in.Heat.Maps[0].Keys[0].Token != 12345 {
			t.Errorf("%s: the analyzer's report was changed", mode)
		}
		f := out.Findings[0]
		if f.PartitionKey != k.Show(planted) || f.ID != k.ID(in.Findings[0].ID) || out.Problems[0].ID != f.ID || out.Problems[0].Evidence[0].ID != f.ID {
			t.Errorf("%s: finding %+v: want key %q and one digest ID everywhere", mode, f, k.Show(planted))
		}
		if f.Keyspace != "shop" || f.Table != "carts" || f.Node != "10.0.0.1" || f.Kind != in.Findings[0].Kind {
			t.Errorf("%s: identity fields changed: %+v", mode, f)
		}
		if hk := out.Heat.Maps[0].Keys[0]; hk.OK || hk.Token != 0 {
			t.Errorf("%s: heat key keeps its token: %+v", mode, hk)
		}
	}
	plain := plantedReport()
	if Shown(keys.New(keys.Plain, nil, 0), plain) != plain {
		t.Error("plain mode copies the report")
	}
}

// BenchmarkShown: a report of 1,000 tables on 30 nodes (30,000 table
// nodes), 500 keyed findings and 1,000 top partitions, hashed.
func BenchmarkShown(b *testing.B) {
	r := &analyzer.Report{}
	for i := 0; i < 1000; i++ {
		for n := 0; n < 30; n++ {
			r.TableNodes = append(r.TableNodes, analyzer.TableNode{Keyspace: "ks", Table: fmt.Sprint("t", i), Node: fmt.Sprint("10.0.0.", n)})
		}
		key := fmt.Sprintf("user-%d@example.org", i)
		r.TopPartitions = append(r.TopPartitions, analyzer.PartitionEntry{Keyspace: "ks", Table: fmt.Sprint("t", i), Key: key})
		if i%2 == 0 {
			r.Findings = append(r.Findings, finding.Finding{ID: fmt.Sprint(i), Kind: "hot_partition", PartitionKey: key,
				Summary: "partition " + key + " of ks.t takes 40% of reads", Advice: "cache " + key})
		}
	}
	k := keys.New(keys.Hashed, secret, 0)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		Shown(k, r)
	}
}
