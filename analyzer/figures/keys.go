package figures

import (
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/model"
)

// KeyHistories copies the history's key series of every table the schema
// or a node names, by table key (the history goes on changing after the
// analysis).
func KeyHistories(ix *index.Index, h *history.History) map[string][]history.NamedKeySeries {
	out := map[string][]history.NamedKeySeries{}
	add := func(keyspace, table string) {
		key := model.TableKey(keyspace, table)
		if _, done := out[key]; done {
			return
		}
		ks := h.KeysOf(keyspace, table)
		for i := range ks {
			ks[i].Points = append([]history.KeyPoint(nil), ks[i].Points...)
			ks[i].Replicas = append([]string(nil), ks[i].Replicas...)
		}
		if len(ks) > 0 {
			out[key] = ks
		}
	}
	for _, ks := range ix.Ownership().Keyspaces {
		for _, t := range ks.Keyspace.Tables {
			add(ks.Keyspace.Name, t.Name)
		}
	}
	for _, t := range ix.Tables {
		add(t.Keyspace, t.Name)
	}
	return out
}
