package nodetool

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/partmon/partmon/collector/internal/cqlname"
	"github.com/partmon/partmon/model"
)

// profileloadSectionOps maps the section titles of the frequency samplers
// (Sampler.SamplerType descriptions) to HotPartition.Op.
var profileloadSectionOps = map[string]string{
	"Frequency of reads by partition":  "read",
	"Frequency of writes by partition": "write",
}

const profileloadNothing = "Nothing recorded during sampling period..."

// jvmLogLine is a HotSpot unified-logging line with its default decorators
// ("[12.345s][warning][os,thread] ..."); vmWarning is HotSpot's own warning
// prefix. HotSpot writes both to stdout unless told otherwise
// (-Xlog:...:stderr, -XX:+DisplayVMOutputToStderr), so a loaded machine's
// nodetool can print them among its own lines.
var (
	jvmLogLine = regexp.MustCompile(`^\[\d+(\.\d+)?[a-z]*\]\[`)
	vmWarning  = regexp.MustCompile(`^(OpenJDK|Java HotSpot\(TM\)) (64-Bit )?(Server|Client) VM warning: `)
)

// jvmOutput says whether a line of nodetool's stdout is the JVM's, not
// nodetool's.
func jvmOutput(line string) bool { return jvmLogLine.MatchString(line) || vmWarning.MatchString(line) }

// ParseProfileload parses the output of `nodetool profileload` (Cassandra
// 4.0–5.0). Each sampler prints a title line ending in ":" and then either
// "Nothing recorded during sampling period..." or a table whose header is
// "Table Partition Count +/-" and whose rows are
// "<keyspace.table> <partition key> <count> <error>", columns padded with
// spaces. Only the READS and WRITES sections are returned; other samplers'
// sections are skipped. The key is the text between the table and the two
// numbers, so keys with inner spaces survive (leading or trailing spaces of a
// key do not). Total is the sum of the listed counts of that table and
// operation, because profileload prints no cardinality: with TopK close to
// Capacity it approaches the operations the sampler saw (space-saving keeps
// Σcount equal to that), with a small TopK it is a lower bound.
func ParseProfileload(out string) ([]model.HotPartition, error) {
	hot, _, err := parseProfileload(out)
	return hot, err
}

// parseProfileload also says which ops had a section, even an empty one.
func parseProfileload(out string) ([]model.HotPartition, map[string]bool, error) {
	lines := strings.Split(strings.ReplaceAll(out, "\r\n", "\n"), "\n")
	var hot []model.HotPartition
	sections := 0
	seen := map[string]bool{}
	op := ""         // the op of the current frequency section; "" inside another sampler's section
	inOther := false // inside a section partmon does not read
	header := false  // the current section's header line was seen
	for n, line := range lines {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || jvmOutput(line) {
			continue
		}
		// Section titles start at column 0 and end in ':'; table lines are indented.
		if line[0] != ' ' && line[0] != '\t' && strings.HasSuffix(trimmed, ":") {
			title := strings.TrimSuffix(trimmed, ":")
			sections++
			op = profileloadSectionOps[title]
			inOther = op == ""
			if !inOther {
				seen[op] = true
			}
			header = false
			continue
		}
		if op == "" && !inOther {
			return nil, nil, fmt.Errorf("line %d: %d bytes outside any sampler section", n+1, len(trimmed))
		}
		if inOther || trimmed == profileloadNothing {
			continue
		}
		fields := strings.Fields(trimmed)
		if !header {
			if len(fields) != 4 || fields[0] != "Table" || fields[1] != "Partition" || fields[2] != "Count" || fields[3] != "+/-" {
				return nil, nil, fmt.Errorf("line %d: not the Table Partition Count +/- header", n+1)
			}
			header = true
			continue
		}
		h, err := parseProfileloadRow(trimmed, fields)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", n+1, err)
		}
		h.Op = op
		hot = append(hot, h)
	}
	if sections == 0 {
		return nil, nil, errors.New("no sampler section in the output")
	}
	totals := map[string]int64{}
	for _, h := range hot {
		id := h.Op + " " + model.TableKey(h.Keyspace, h.Table)
		if totals[id] > 1<<63-1-h.Count {
			return nil, nil, fmt.Errorf("%s counts of %s overflow int64", h.Op, model.TableKey(h.Keyspace, h.Table))
		}
		totals[id] += h.Count
	}
	for i := range hot {
		hot[i].Total = totals[hot[i].Op+" "+model.TableKey(hot[i].Keyspace, hot[i].Table)]
	}
	return hot, seen, nil
}

// parseProfileloadRow reads "<ks.table> <key…> <count> <error>".
func parseProfileloadRow(line string, fields []string) (model.HotPartition, error) {
	if len(fields) < 4 {
		return model.HotPartition{}, fmt.Errorf("%d columns, want table, partition, count and +/-", len(fields))
	}
	ks, table, err := cqlname.SplitTable(fields[0])
	if err != nil {
		return model.HotPartition{}, errors.New("column 1: not a keyspace.table name")
	}
	count, err := strconv.ParseInt(fields[len(fields)-2], 10, 64)
	if err != nil || count < 0 {
		return model.HotPartition{}, fmt.Errorf("column %d: the count is not a non-negative integer", column(line, len(fields)-2))
	}
	errBound, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
	if err != nil || errBound < 0 {
		return model.HotPartition{}, fmt.Errorf("column %d: the +/- is not a non-negative integer", column(line, len(fields)-1))
	}
	// The key is what lies between the table column and the count column.
	key := strings.TrimSpace(strings.TrimPrefix(line, fields[0]))
	key = strings.TrimSpace(strings.TrimSuffix(key, fields[len(fields)-1]))
	key = strings.TrimSpace(strings.TrimSuffix(key, fields[len(fields)-2]))
	return model.HotPartition{Keyspace: ks, Table: table, Key: key, Count: count, Error: errBound, Source: "nodetool"}, nil
}

// column is the 1-based byte column of line's field i (as strings.Fields
// splits it). Errors of a key-bearing output name where, never what: a
// failed run's keys were never learned, so no scrub would catch them.
func column(line string, i int) int {
	at := 0
	for f := 0; ; f++ {
		rest := strings.TrimLeftFunc(line[at:], unicode.IsSpace)
		at = len(line) - len(rest)
		if f == i || rest == "" {
			return at + 1
		}
		at += strings.IndexFunc(rest+" ", unicode.IsSpace)
	}
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
