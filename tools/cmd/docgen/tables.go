package main

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/collector"
)

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}

func code(s string) string { return "`" + s + "`" }

// row writes one Markdown table row; a | inside a cell is escaped.
func row(cells ...string) string {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return "| " + strings.Join(cells, " | ") + " |\n"
}

// sourcesTable is docs/configuration.md's table of sources: what each
// reads, where it runs, its default schedule and whether it is on.
func sourcesTable(decls []collector.Declaration) string {
	var b strings.Builder
	b.WriteString("| source | reads | engine, version | default schedule | by default |\n|---|---|---|---|---|\n")
	for _, d := range decls {
		on := "on"
		if d.OffUnless != "" {
			on = "off unless " + code(d.OffUnless) + " is set"
		}
		b.WriteString(row(code(d.Name), d.DocReads(), d.Gate.On(), code(d.Schedule), on))
	}
	return b.String()
}

// releases are the Cassandra release series partmon supports and make test
// runs (docs/versions.md).
var releases = []string{"4.0", "4.1", "5.0"}

// sourceIndexTable is docs/sources.md's index of sources: where each is
// read from, on which releases and engines its gate lets it run, and the
// keyspaces its reads need SELECT on.
func sourceIndexTable(decls []collector.Declaration) string {
	var b strings.Builder
	b.WriteString("| source | read from | Cassandra " + strings.Join(releases, " | ") + " | ScyllaDB | SELECT on |\n")
	b.WriteString("|---|---|" + strings.Repeat("---|", len(releases)) + "---|---|\n")
	mark := func(ok bool) string {
		if ok {
			return "✔"
		}
		return "–"
	}
	for _, d := range decls {
		from := "each node"
		if d.Scope == collector.ClusterScope {
			from = "any one node"
		}
		cells := []string{code(d.Name), from}
		for _, r := range releases {
			cells = append(cells, mark(d.Gate.OnRelease(r)))
		}
		grants := "none (not CQL)"
		if len(d.Grants) > 0 {
			var ks []string
			for _, g := range d.Grants {
				ks = append(ks, code(g))
			}
			grants = strings.Join(ks, ", ")
		}
		cells = append(cells, mark(d.Gate.ScyllaDB), grants)
		b.WriteString(row(cells...))
	}
	return b.String()
}

// grantBlock is the grants partmon's role needs, as CQL to paste into
// cqlsh; withRole adds the statement that creates the role.
func grantBlock(keyspaces []string, withRole bool) string {
	var b strings.Builder
	b.WriteString("```sql\n")
	if withRole {
		b.WriteString("CREATE ROLE partmon WITH LOGIN = true AND SUPERUSER = false AND PASSWORD = '...';\n")
	}
	for _, ks := range keyspaces {
		fmt.Fprintf(&b, "GRANT SELECT ON KEYSPACE %s TO partmon;\n", ks)
	}
	b.WriteString("```\n")
	return b.String()
}

// readersOf are the thresholds each kind or alert reads, in the
// thresholds' order.
func readersOf(named []analyzer.NamedThreshold) map[string][]string {
	out := map[string][]string{}
	for _, n := range named {
		for _, r := range n.ReadBy {
			out[r] = append(out[r], n.Key)
		}
	}
	return out
}

// kindsTable is docs/configuration.md's table of kinds of finding: what
// each means, the thresholds its rule reads and what its series carry for
// the shipped alerts.
func kindsTable() string {
	reads := readersOf(analyzer.DefaultThresholds().Named())
	var b strings.Builder
	b.WriteString("| kind | what a finding means | thresholds it reads | pushed without a key | alert reading its `partmon_finding_value` |\n|---|---|---|---|---|\n")
	for _, name := range analyzer.Kinds() {
		k, _ := analyzer.KindOf(name)
		var ths []string
		for _, key := range reads[name] {
			ths = append(ths, code(key))
		}
		pushed, alert := "no", "–"
		if k.PushedWithoutKey {
			pushed = "yes"
		}
		if k.RuleAlert != "" {
			alert = code(k.RuleAlert)
		}
		b.WriteString(row(code(name), k.Sentence, strings.Join(ths, ", "), pushed, alert))
	}
	return b.String()
}

var thresholdRow = regexp.MustCompile("^\\| `thresholds\\.([a-z_]+)` \\|")

// thresholdsTable is docs/configuration.md's table of thresholds: each
// key, its default and what reads it from the analyzer's table, and its
// meaning from the doc's own row (the prose is written there, by key).
func thresholdsTable(old string) (string, error) {
	meaning := map[string]string{}
	for _, line := range strings.Split(old, "\n") {
		m := thresholdRow.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		cells := splitRow(line)
		meaning[m[1]] = strings.TrimSpace(cells[len(cells)-1])
	}
	var b strings.Builder
	b.WriteString("| key | default | read by | meaning |\n|---|---|---|---|\n")
	for _, n := range analyzer.DefaultThresholds().Named() {
		var readers []string
		for _, r := range n.ReadBy {
			readers = append(readers, code(r))
		}
		// A new threshold's meaning is empty until written in its row.
		b.WriteString(row(code("thresholds."+n.Key), thresholdDefault(n), strings.Join(readers, ", "), meaning[n.Key]))
	}
	return b.String(), nil
}

// splitRow splits a Markdown table row into its cells; an escaped \| is a
// | inside a cell (row escapes it again).
func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(line), "|"), "|")
	var cells []string
	var cur strings.Builder
	for i := 0; i < len(line); i++ {
		switch {
		case line[i] == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case line[i] == '|':
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(line[i])
		}
	}
	return append(cells, cur.String())
}

// thresholdDefault writes a default as the config file takes it: a
// duration short ("168h"), a size in bytes with its binary size, anything
// else in plain decimals.
func thresholdDefault(n analyzer.NamedThreshold) string {
	switch {
	case strings.HasSuffix(n.Name, "_seconds"):
		return code(shortDuration(time.Duration(n.Value * float64(time.Second))))
	case strings.HasSuffix(n.Name, "_bytes") && n.Value >= 1024:
		return code(strconv.FormatFloat(n.Value, 'f', -1, 64)) + " (" + binarySize(n.Value) + ")"
	}
	return code(strconv.FormatFloat(n.Value, 'f', -1, 64))
}

// shortDuration drops a duration's zero tail: 168h0m0s is 168h, 15m0s 15m.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// binarySize writes a size in the largest binary unit it is a whole
// multiple of (50 MiB, 1 GiB), else in bytes.
func binarySize(v float64) string {
	b := int64(v)
	for _, u := range []struct {
		name string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if b >= u.size && b%u.size == 0 {
			return fmt.Sprintf("%d %s", b/u.size, u.name)
		}
	}
	return fmt.Sprintf("%d bytes", b)
}
