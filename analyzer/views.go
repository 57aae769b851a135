package analyzer

import (
	"fmt"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

// viewAdvice is what a finding on a materialized view adds to its advice: a
// view's primary key cannot be altered (ALTER MATERIALIZED VIEW changes
// only its options), so a new key means a new view or table.
const viewAdvice = " %s is a materialized view of %s: its primary key cannot be altered; create a new view (or a table the application writes) with the new key, move the readers to it, then drop this view."

// nameViewBases marks the findings about a materialized view with the table
// the view is built from, in the finding and in its advice.
func (a pipeline) nameViewBases(fs []finding.Finding) {
	bases := map[string]string{}
	for _, t := range a.tables {
		if t.schema != nil && t.schema.IsView() {
			bases[t.key] = t.schema.BaseTable
		}
	}
	if len(bases) == 0 {
		return
	}
	for i := range fs {
		f := &fs[i]
		base, ok := bases[model.TableKey(f.Keyspace, f.Table)]
		if !ok || f.BaseTable != "" {
			continue
		}
		f.BaseTable = base
		if f.Advice != "" {
			f.Advice += fmt.Sprintf(viewAdvice, f.Keyspace+"."+f.Table, f.Keyspace+"."+base)
		}
	}
}
