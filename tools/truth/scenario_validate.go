package truth

// The checks of a scenario's tables, traffic and expectations, each saying what to fix.

import (
	"fmt"
	"strings"
)

func (t *Table) validate(keyspace string) error {
	if !identifier.MatchString(t.Name) {
		return fmt.Errorf("want a lower-case identifier")
	}
	want := "{ks}." + t.Name
	if !strings.Contains(t.CQL, want) || !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(t.CQL)), "CREATE TABLE") {
		return fmt.Errorf("cql must be a CREATE TABLE of %s", want)
	}
	if t.Partitions <= 0 || t.Rows <= 0 {
		return fmt.Errorf("partitions and rows (per partition) must be positive")
	}
	for _, o := range t.Outliers {
		if o.Partition < 0 || o.Partition >= t.Partitions || o.Rows <= 0 {
			return fmt.Errorf("outlier partition %d with %d rows: out of range", o.Partition, o.Rows)
		}
	}
	if t.DeleteFirst < 0 || t.DeleteFirst >= t.Rows {
		return fmt.Errorf("delete_first %d must leave live rows (rows %d)", t.DeleteFirst, t.Rows)
	}
	for name, c := range t.Columns {
		if c.Count < 0 || c.Size < 0 || c.Step < 0 {
			return fmt.Errorf("column %s: negative count, size or step", name)
		}
		if len(c.Values) > 0 && c.Count > 0 {
			return fmt.Errorf("column %s: give values or count, not both", name)
		}
	}
	return nil
}

func (tr *Traffic) validate(tables map[string]*Table) error {
	if tables[tr.Table] == nil {
		return fmt.Errorf("no such table in the scenario")
	}
	switch {
	case tr.Rate <= 0:
		return fmt.Errorf("rate must be positive")
	case tr.ReadRatio < 0 || tr.DeleteRatio < 0 || tr.ReadRatio+tr.DeleteRatio > 1:
		return fmt.Errorf("read_ratio + delete_ratio must be within 0..1")
	case tr.ReadRatio > 0 && len(tr.Reads) == 0:
		return fmt.Errorf("read_ratio > 0 needs reads")
	case tr.Popularity != "zipf" && tr.Popularity != "uniform":
		return fmt.Errorf("popularity %q: want zipf or uniform", tr.Popularity)
	case tr.Popularity == "zipf" && (tr.ZipfS <= 0 || tr.ZipfS > 3):
		return fmt.Errorf("zipf_s %g: want 0 < s <= 3", tr.ZipfS)
	case tr.Writes != "append" && tr.Writes != "overwrite":
		return fmt.Errorf("writes %q: want append or overwrite", tr.Writes)
	case tr.Consistency != "ONE" && tr.Consistency != "LOCAL_ONE":
		return fmt.Errorf("consistency %q: want ONE or LOCAL_ONE", tr.Consistency)
	}
	if tr.Hot != nil && (tr.Hot.Share <= 0 || tr.Hot.Share >= 1 || tr.Hot.Partition < 0 || tr.Hot.Partition >= tables[tr.Table].Partitions) {
		return fmt.Errorf("hot: want a partition in range and 0 < share < 1")
	}
	for _, r := range tr.Reads {
		if !strings.Contains(r, "{table}") {
			return fmt.Errorf("read %q must name its table as {table}", r)
		}
	}
	return nil
}

func (e *Expectation) validate(tables map[string]*Table) error {
	if e.Kind == "" {
		return fmt.Errorf("kind is required")
	}
	if e.Table != "" && tables[e.Table] == nil {
		return fmt.Errorf("no such table in the scenario")
	}
	if e.Phase != PhaseOneShot && e.Phase != PhaseDaemon && e.Phase != PhaseBoth {
		return fmt.Errorf("phase %q: want oneshot, daemon or both", e.Phase)
	}
	if _, ok := severityRank[e.MinSeverity]; !ok {
		return fmt.Errorf("min_severity %q: want info, warning or critical", e.MinSeverity)
	}
	for _, ref := range []*KeyRef{e.NodeOf, e.Key} {
		if ref == nil {
			continue
		}
		t := tables[ref.Table]
		if t == nil || ref.Partition < 0 || ref.Partition >= t.Partitions {
			return fmt.Errorf("key reference %s/%d: want a table of the scenario and a partition in range", ref.Table, ref.Partition)
		}
	}
	given := 0
	for _, g := range []bool{e.Node != "", e.NodeOf != nil, e.NodeIn != nil} {
		if g {
			given++
		}
	}
	if given > 1 {
		return fmt.Errorf("give one of node, node_of and node_in")
	}
	if e.NodeIn != nil && (e.NodeIn.DC == "" || e.NodeIn.Rack == "") {
		return fmt.Errorf("node_in needs both dc and rack")
	}
	return nil
}

// severityRank orders partmon's severity names.
var severityRank = map[string]int{"none": 0, "info": 1, "warning": 2, "critical": 3}
