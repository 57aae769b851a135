package analyzer

import (
	"fmt"
	"sort"
	"strings"

	"github.com/partmon/partmon/analyzer/finding"
)

// One entry per problem across kinds. fold merges one kind's judgements of
// a problem on several nodes; a partition can also show one problem through
// several kinds (a time series with no bucket is both unbucketed_time_series
// and, once large, oversized_partition). groupProblems gathers those into a
// Problem, so the report, the API, the status page and the pushed alerts
// show it once, with each kind's evidence inside and one advice. Findings
// stay one per kind: Prometheus keeps its per-kind series.

// Problem is one problem as a reader meets it. Its Finding is the face: the
// most severe member, with the problem's ID and its merged advice.
type Problem struct {
	finding.Finding
	// Kinds are the members' kinds, the face's first.
	Kinds []string `json:"kinds"`
	// Evidence is every member finding as its rule wrote it (its own ID,
	// summary and advice), the face first.
	Evidence []finding.Finding `json:"evidence"`
}

// A partition kind judges a table's partitions: findings of these kinds on
// the same table and partition are one problem. Its problemOrder (kinds.go)
// is the order in which a member lends the problem its ID, fixed so the ID
// stays while members come and go with their severities.
func problemOrder(kind string) int {
	k, _ := KindOf(kind)
	return k.problemOrder
}

// The split advisors (kinds.go's splitOrder) all advise splitting the
// partition (a bucket or a shard in the partition key); a problem gives one
// such advice, never two sized differently. Earlier ones size the split
// from more evidence.

// groupProblems makes one Problem per table partition across kinds, and one
// per finding of any other kind. fs are sorted (sortFindings); the
// problems keep that order, most severe first.
func groupProblems(fs []finding.Finding) []Problem {
	keys := namedKeys(fs)
	groups := map[string][]finding.Finding{}
	var order []string
	for i, f := range fs {
		g := problemGroup(f, keys)
		if g == "" {
			g = fmt.Sprint("finding\x00", i)
		}
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		groups[g] = append(groups[g], f)
	}
	out := make([]Problem, 0, len(order))
	for _, g := range order {
		out = append(out, newProblem(groups[g]))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Severity > out[j].Severity })
	return out
}

// namedKeys are the partition keys the partition kinds' findings name, per
// table.
func namedKeys(fs []finding.Finding) map[string]map[string]bool {
	keys := map[string]map[string]bool{}
	for _, f := range fs {
		if problemOrder(f.Kind) == 0 || f.PartitionKey == "" {
			continue
		}
		t := tableOf(f)
		if keys[t] == nil {
			keys[t] = map[string]bool{}
		}
		keys[t][f.PartitionKey] = true
	}
	return keys
}

func tableOf(f finding.Finding) string {
	return strings.Join([]string{f.Cluster, f.Keyspace, f.Table}, "\x00")
}

// problemGroup names the problem f belongs to: its table and partition key
// when f is of a partition kind, else "" (a problem of its own). A finding that names
// no key joins the table's one named key, when the table's findings name
// exactly one; with several keys named, it stays a problem of its own.
func problemGroup(f finding.Finding, keys map[string]map[string]bool) string {
	if problemOrder(f.Kind) == 0 || f.Table == "" {
		return ""
	}
	key := f.PartitionKey
	if named := keys[tableOf(f)]; key == "" && len(named) > 1 {
		return ""
	} else if key == "" {
		for k := range named {
			key = k
		}
	}
	return "partition\x00" + tableOf(f) + "\x00" + key
}

func newProblem(members []finding.Finding) Problem {
	sort.SliceStable(members, func(i, j int) bool { return members[i].Severity > members[j].Severity })
	p := Problem{Finding: members[0], Evidence: members}
	for _, m := range members {
		p.Kinds = append(p.Kinds, m.Kind)
	}
	if len(members) == 1 {
		return p
	}
	named := idLender(members)
	p.ID, p.IDNamesNode, p.IDNamesDC = named.ID, named.IDNamesNode, named.IDNamesDC
	p.Advice = mergedAdvice(members)
	if p.PartitionKey == "" {
		for _, m := range members {
			if m.PartitionKey != "" {
				p.PartitionKey = m.PartitionKey
				break
			}
		}
	}
	return p
}

// idLender is the member first in problemOrder, whose ID the problem keeps.
func idLender(members []finding.Finding) finding.Finding {
	best := members[0]
	for _, m := range members[1:] {
		if problemOrder(m.Kind) < problemOrder(best.Kind) {
			best = m
		}
	}
	return best
}

// mergedAdvice: one split advice (the most severe split advisor's, ties
// broken by splitOrder), then each other remedy once, named by its kind.
func mergedAdvice(members []finding.Finding) string {
	var split *finding.Finding
	for i := range members {
		m := &members[i]
		if m.Advice == "" || splitRank(m.Kind) < 0 {
			continue
		}
		if split == nil || m.Severity > split.Severity || m.Severity == split.Severity && splitRank(m.Kind) < splitRank(split.Kind) {
			split = m
		}
	}
	var parts []string
	seen := map[string]bool{}
	if split != nil {
		parts, seen[split.Advice] = append(parts, split.Advice), true
	}
	for _, m := range members {
		if m.Advice == "" || splitRank(m.Kind) >= 0 || seen[m.Advice] {
			continue
		}
		seen[m.Advice] = true
		if len(parts) == 0 {
			parts = append(parts, m.Advice)
		} else {
			parts = append(parts, "also, for "+m.Kind+": "+m.Advice)
		}
	}
	return strings.Join(parts, "; ")
}

func splitRank(kind string) int {
	k, _ := KindOf(kind)
	return k.splitOrder - 1
}

// ProblemsIn are r's problems, gathered from its findings when r carries
// none (a report built by hand or read from an older partmon's JSON):
// renderers take their entries from here.
func ProblemsIn(r *Report) []Problem {
	if r.Problems != nil || len(r.Findings) == 0 {
		return r.Problems
	}
	return groupProblems(r.Findings)
}

// ProblemsOf are r's problems of the given severity.
func ProblemsOf(r *Report, sev finding.Severity) []Problem {
	var out []Problem
	for _, p := range ProblemsIn(r) {
		if p.Severity == sev {
			out = append(out, p)
		}
	}
	return out
}
