package figures

import (
	"cmp"
	"slices"

	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/model"
)

// table is one table the schema or a node names.
type table struct {
	keyspace, name, key string
	ks                  *index.Keyspace // nil when the keyspace is not in the schema
	schema              *model.Table    // nil when the table is not in the schema
}

// tablesOf are the schema's non-system tables and every table a node
// reports, each once, by keyspace then table: the report's table order.
func tablesOf(ix *index.Index) []table {
	var out []table
	byKey := map[string]int{}
	get := func(keyspace, name string, ks *index.Keyspace) *table {
		key := model.TableKey(keyspace, name)
		if i, ok := byKey[key]; ok {
			return &out[i]
		}
		byKey[key] = len(out)
		out = append(out, table{keyspace: keyspace, name: name, key: key, ks: ks})
		return &out[len(out)-1]
	}
	byName := map[string]*index.Keyspace{}
	for _, ks := range ix.Ownership().Keyspaces {
		byName[ks.Keyspace.Name] = ks
		for i := range ks.Keyspace.Tables {
			get(ks.Keyspace.Name, ks.Keyspace.Tables[i].Name, ks).schema = &ks.Keyspace.Tables[i]
		}
	}
	for _, t := range ix.Tables {
		get(t.Keyspace, t.Name, byName[t.Keyspace])
	}
	slices.SortFunc(out, func(a, b table) int {
		return cmp.Or(cmp.Compare(a.keyspace, b.keyspace), cmp.Compare(a.name, b.name))
	})
	return out
}
