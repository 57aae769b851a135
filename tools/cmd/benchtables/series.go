package main

import (
	"bufio"
	"bytes"
	"strings"
)

// seriesCount summarises one /metrics exposition (text format).
type seriesCount struct {
	total int // every sample line
	// partmon counts partmon_* series; process/Go runtime series are the rest.
	partmon int
	// tableNode counts the per-table-per-node families (partmon_table_*
	// with a node label), tableAny every series with a table label
	// (those plus per-table forecasts, top-K keys and finding values).
	tableNode, tableAny int
	// tables is the number of distinct (keyspace, table) in tableNode series.
	tables int
	// bench counts tableNode series of the benchmark keyspaces, over benchTables tables.
	bench, benchTables int
	// maxPerTable is the most tableNode series any one (node, table) has.
	maxPerTable int
}

// perTable is the per-table-per-node series per table.
func (s seriesCount) perTable() float64 {
	if s.tables == 0 {
		return 0
	}
	return float64(s.tableNode) / float64(s.tables)
}

// perTableAll counts every series with a table label per table.
func (s seriesCount) perTableAll() float64 {
	if s.tables == 0 {
		return 0
	}
	return float64(s.tableAny) / float64(s.tables)
}

func countSeries(body []byte) seriesCount {
	var c seriesCount
	perTable := map[string]int{}
	benchTables := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		c.total++
		name, labels := parseSample(line)
		if !strings.HasPrefix(name, "partmon_") {
			continue
		}
		c.partmon++
		table, hasTable := labels["table"]
		if !hasTable {
			continue
		}
		c.tableAny++
		node, hasNode := labels["node"]
		if !strings.HasPrefix(name, "partmon_table_") || !hasNode {
			continue
		}
		c.tableNode++
		id := node + "|" + labels["keyspace"] + "." + table
		perTable[id]++
		if strings.HasPrefix(labels["keyspace"], keyspacePrefix) {
			c.bench++
			benchTables[id] = true
		}
	}
	c.tables = len(perTable)
	c.benchTables = len(benchTables)
	for _, n := range perTable {
		c.maxPerTable = max(c.maxPerTable, n)
	}
	return c
}

// parseSample splits `name{a="x",b="y"} value` into the name and labels;
// label values are unescaped (\\, \", \n).
func parseSample(line string) (string, map[string]string) {
	i := strings.IndexAny(line, "{ ")
	if i < 0 {
		return line, nil
	}
	name := line[:i]
	labels := map[string]string{}
	if line[i] != '{' {
		return name, labels
	}
	rest := line[i+1:]
	for len(rest) > 0 && rest[0] != '}' {
		eq := strings.IndexByte(rest, '=')
		if eq < 0 || eq+1 >= len(rest) || rest[eq+1] != '"' {
			return name, labels
		}
		key := strings.TrimLeft(rest[:eq], ", ")
		var val strings.Builder
		j := eq + 2
		for ; j < len(rest) && rest[j] != '"'; j++ {
			if rest[j] == '\\' && j+1 < len(rest) {
				j++
				switch rest[j] {
				case 'n':
					val.WriteByte('\n')
				default:
					val.WriteByte(rest[j])
				}
				continue
			}
			val.WriteByte(rest[j])
		}
		labels[key] = val.String()
		if j+1 > len(rest) {
			break
		}
		rest = strings.TrimLeft(rest[j+1:], ",")
	}
	return name, labels
}
