package analyzer

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/partmon/partmon/model"
)

// Column kinds as system_schema.columns writes them.
const (
	kindPartitionKey = "partition_key"
	kindClustering   = "clustering"
)

// partitionKey returns the partition key columns by position.
func partitionKey(t *model.Table) []model.Column {
	return columnsOfKind(t, kindPartitionKey)
}

// clusteringColumns returns the clustering columns by position.
func clusteringColumns(t *model.Table) []model.Column {
	return columnsOfKind(t, kindClustering)
}

// A table may have sizes but no schema (a materialized view, or a table
// created after the schema was read): then it has no known columns, and a
// caller that needs them says unknown.
func columnsOfKind(t *model.Table, kind string) []model.Column {
	if t == nil {
		return nil
	}
	var out []model.Column
	for _, c := range t.Columns {
		if c.Kind == kind {
			out = append(out, c)
		}
	}
	// The collector lists them by position; sort defensively (few columns).
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Position < out[j-1].Position; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

func columnByName(t *model.Table, name string) (model.Column, bool) {
	if t == nil {
		return model.Column{}, false
	}
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	return model.Column{}, false
}

// baseType strips frozen<> and lower-cases a CQL type.
func baseType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	for strings.HasPrefix(t, "frozen<") && strings.HasSuffix(t, ">") {
		t = strings.TrimSuffix(strings.TrimPrefix(t, "frozen<"), ">")
	}
	return t
}

// isTimeType: the types a time series clusters by. ("time" is a time of
// day: it repeats every day, so it does not make a partition grow forever.)
func isTimeType(t string) bool {
	switch baseType(t) {
	case "timestamp", "timeuuid", "date":
		return true
	}
	return false
}

func isCollectionType(t string) bool {
	b := baseType(t)
	return strings.HasPrefix(b, "list<") || strings.HasPrefix(b, "set<") || strings.HasPrefix(b, "map<") ||
		strings.HasPrefix(b, "tuple<")
}

// typeCardinality is how many distinct values a CQL type can hold, when that
// is small; 0 means "effectively unbounded".
func typeCardinality(t string) float64 {
	switch baseType(t) {
	case "boolean":
		return 2
	case "tinyint":
		return 256
	}
	return 0
}

// Names that say a partition-key column is a time bucket or a shard.
var bucketName = regexp.MustCompile(`(^|_)(bucket|shard|partition|part|day|days|date|month|year|week|hour|minute|period|window|epoch|yyyymm|yyyymmdd|ymd|ym|slot|segment|chunk)s?($|_)|^(day|date|month|year|week|hour|bucket)`)

// isBucketColumn: a partition-key column that splits a series over time or
// into shards: a time-typed column, or an integer/text column named like one.
func isBucketColumn(c model.Column) bool {
	if isTimeType(c.Type) {
		return true
	}
	switch baseType(c.Type) {
	case "int", "bigint", "smallint", "tinyint", "varint", "text", "varchar", "ascii":
		return bucketName.MatchString(strings.ToLower(c.Name))
	}
	return false
}

// Names of columns holding a few repeated values.
var enumName = regexp.MustCompile(`(^|_)(status|state|type|kind|category|level|flag|enabled|active|gender|country|region|color|colour|priority|stage|mode|tier|env|environment)($|_)`)

func looksEnumLike(c model.Column) bool {
	switch baseType(c.Type) {
	case "text", "varchar", "ascii", "int", "smallint", "tinyint", "boolean":
		return enumName.MatchString(strings.ToLower(c.Name))
	}
	return false
}

// Names of columns holding a value per entity or per event.
var idName = regexp.MustCompile(`(^|_)(id|uuid|guid|email|token|hash|phone|session|serial|url|username|login|ip)$|(user|order|customer|account|device|session|product|item|request|event|message|transaction|client|tenant|object|entity|document|record|trace|span)id$`)

var scyllaLocalIndexTarget = regexp.MustCompile(`"ck"\s*:\s*\[\s*"([^"]+)"`)

// looksHighCardinality: a regular column whose values are (nearly) unique.
func looksHighCardinality(c model.Column) (bool, string) {
	switch b := baseType(c.Type); b {
	case "uuid", "timeuuid", "timestamp":
		return true, "type " + b
	case "text", "varchar", "ascii", "bigint", "int", "varint", "blob", "inet":
		if idName.MatchString(strings.ToLower(c.Name)) {
			return true, "name " + c.Name
		}
	}
	return false, ""
}

// indexTarget reads the indexed column from index options: "col",
// "values(col)", "keys(col)", "entries(col)", "full(col)"; ScyllaDB local
// indexes write {"pk":[...],"ck":[...]} and partmon reads the ck column.
func indexTarget(ix model.Index) (column, wrapper string, scyllaLocal bool) {
	target := strings.TrimSpace(ix.Options["target"])
	if strings.HasPrefix(target, "{") {
		m := scyllaLocalIndexTarget.FindStringSubmatch(target)
		if m == nil {
			return "", "", true
		}
		return m[1], "", true
	}
	if open := strings.IndexByte(target, '('); open > 0 && strings.HasSuffix(target, ")") {
		wrapper = target[:open]
		target = target[open+1 : len(target)-1]
	}
	return strings.Trim(target, `"`), wrapper, false
}

// isCustomIndex tells SAI, SASI and other custom index classes apart from
// the legacy 2i, and names the class.
func isCustomIndex(ix model.Index) (bool, string) {
	if !strings.EqualFold(ix.Kind, "CUSTOM") {
		return false, ""
	}
	class := ix.Options["class_name"]
	class = class[strings.LastIndexByte(class, '.')+1:]
	return true, class
}

// noteWithoutSchema names the tables the nodes report sizes of but the
// schema does not list: they are judged by their sizes alone, and what only
// their columns could decide is unknown, not guessed.
func (a *analysis) noteWithoutSchema() {
	var names []string
	for _, t := range a.tables {
		if t.schema == nil && len(t.nodes) > 0 {
			names = append(names, t.key)
		}
	}
	if len(names) == 0 {
		return
	}
	list := strings.Join(names, ", ")
	if len(names) > 5 {
		list = fmt.Sprintf("%s and %d more", strings.Join(names[:5], ", "), len(names)-5)
	}
	a.note("%s: sizes but no schema row (a table created or a keyspace dropped since the schema was read, or a view the schema did not list): "+
		"judged by sizes only; low_cardinality_key, unbucketed_time_series, secondary_index_high_cardinality, ascending_time_order "+
		"and wide_partition's cell-count bound need the columns and are unknown for %s", list, plural(len(names), "it", "them"))
}
