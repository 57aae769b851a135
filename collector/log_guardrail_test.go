package collector

import (
	"fmt"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cassandralog"
	"github.com/partmon/partmon/model"
)

// A write guardrail's warnings fold into one evidence per column and level
// with every figure in its series; the failure is its own evidence; an
// sstable write's line names the table and, for a one-value row, the key.
func TestWriteGuardrailEvidence(t *testing.T) {
	n := newLogStore(LogsConfig{}.withDefaults()).node("10.0.0.1")
	schema := &model.Schema{Keyspaces: []model.Keyspace{{Name: "ks", Tables: []model.Table{
		{Keyspace: "ks", Name: "docs", Columns: []model.Column{{Name: "id", Kind: "partition_key"}, {Name: "items", Kind: "regular"}}},
	}}}}
	for i := 0; i < 10; i++ {
		msg := fmt.Sprintf("Guardrail collection_size violated: Detected collection items of size %d, this exceeds the warning threshold of 4096.", 4100+432*i)
		for _, ev := range cassandralog.Parse(msg) {
			n.add(ev, logT0.Add(time.Duration(i)*15*time.Second), systemLogsWhere, schema)
		}
	}
	for _, msg := range []string{
		"Guardrail collection_size violated: Detected collection items of size 8208, this exceeds the failure threshold of 8192.",
		"Guardrail items_per_collection violated: Detected collection items in row 'doc1' in table ks.docs with 450 items, this exceeds the failure threshold of 200.",
	} {
		for _, ev := range cassandralog.Parse(msg) {
			n.add(ev, logT0.Add(3*time.Minute), systemLogsWhere, schema)
		}
	}
	ev := n.sorted()
	if len(ev) != 3 {
		t.Fatalf("%d evidence, want 3: %s", len(ev), asJSON(ev))
	}
	warn, fail, stored := ev[0], ev[1], ev[2]
	if warn.Kind != model.LogWriteGuardrail || warn.Guardrail != "collection_size" || warn.Column != "items" || warn.Table != "" ||
		warn.Failure || warn.Count != 10 || warn.Value != 4100+432*9 || len(warn.Series) != 10 || warn.Series[9] != (model.GuardrailPoint{At: logT0.Add(135 * time.Second).Unix(), Value: 4100 + 432*9}) {
		t.Errorf("warnings: %s", asJSON(warn))
	}
	if !fail.Failure || fail.Value != 8208 || fail.Threshold != 8192 || fail.Column != "items" {
		t.Errorf("failure: %s", asJSON(fail))
	}
	if !stored.Stored || stored.Keyspace != "ks" || stored.Table != "docs" || stored.Key != "doc1" || stored.Guardrail != "items_per_collection" {
		t.Errorf("sstable write: %s", asJSON(stored))
	}
}

// Past the bound, the series merges in pairs and keeps its span and its
// largest figure.
func TestGuardrailSeriesBound(t *testing.T) {
	cur := &model.LogEvidence{}
	for i := 0; i < 3*model.MaxGuardrailSeries; i++ {
		foldSeries(cur, &model.LogEvidence{Series: []model.GuardrailPoint{{At: int64(i), Value: int64(i % 7)}}})
	}
	s := cur.Series
	if len(s) > model.MaxGuardrailSeries || s[0].At >= int64(3*model.MaxGuardrailSeries/8) || s[len(s)-1].At != int64(3*model.MaxGuardrailSeries-1) {
		t.Fatalf("%d points from %v to %v", len(s), s[0], s[len(s)-1])
	}
	for _, p := range s {
		if p.Value == 6 {
			return
		}
	}
	t.Errorf("the largest figure 6 was lost: %v", s)
}
