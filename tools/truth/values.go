package truth

import (
	"crypto/sha1"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// column is one column of a created table, as system_schema.columns has it.
type column struct {
	Name     string
	Kind     string // partition_key, clustering, regular, static
	Position int
	Type     string
}

// tableSchema is a table's columns by role, in key order.
type tableSchema struct {
	Keyspace, Name string
	Partition      []column
	Clustering     []column
	Regular        []column // regular and static
}

// base is the time the loaded rows start from; fixed so reruns write the
// same rows.
var base = time.Date(2024, 12, 1, 0, 0, 0, 0, time.UTC)

// generator makes the deterministic values of one table's rows: partition p
// and row r always give the same primary key, so later writes, deletes and
// reads of the traffic address the rows the load wrote.
type generator struct {
	t      *Table
	schema *tableSchema
	// card is the cardinality of each partition key column; the partition
	// index is a mixed-radix number over them, first column most significant.
	card []int
}

func newGenerator(t *Table, schema *tableSchema) (*generator, error) {
	if len(schema.Partition) == 0 {
		return nil, fmt.Errorf("%s.%s has no partition key columns in system_schema.columns", schema.Keyspace, schema.Name)
	}
	if len(schema.Clustering) == 0 {
		if t.Rows != 1 || len(t.Outliers) > 0 {
			return nil, fmt.Errorf("%s has no clustering column: every partition holds one row (rows: 1, no outliers)", t.Name)
		}
	}
	for _, c := range append(append(append([]column{}, schema.Partition...), schema.Clustering...), schema.Regular...) {
		if !supportedType(c.Type) {
			return nil, fmt.Errorf("%s.%s: column type %s is not generated (supported: text, ascii, varchar, int, bigint, smallint, boolean, double, float, uuid, timeuuid, timestamp, date, blob, set<text>, list<text>, map<text, text>)", t.Name, c.Name, c.Type)
		}
	}
	for name := range t.Columns {
		if !hasColumn(schema, name) {
			return nil, fmt.Errorf("%s: columns lists %q, which the table does not have", t.Name, name)
		}
	}
	g := &generator{t: t, schema: schema}
	return g, g.cardinalities()
}

func hasColumn(s *tableSchema, name string) bool {
	for _, list := range [][]column{s.Partition, s.Clustering, s.Regular} {
		for _, c := range list {
			if c.Name == name {
				return true
			}
		}
	}
	return false
}

// cardinalities fills g.card: given counts (values or count), and the one
// column without one taking what is left of Partitions.
func (g *generator) cardinalities() error {
	g.card = make([]int, len(g.schema.Partition))
	known, free := 1, -1
	for i, c := range g.schema.Partition {
		o := g.t.Columns[c.Name]
		switch {
		case len(o.Values) > 0:
			g.card[i] = len(o.Values)
		case o.Count > 0:
			g.card[i] = o.Count
		case free >= 0:
			return fmt.Errorf("%s: partition key columns %s and %s both lack a count: give all but one of them values or count",
				g.t.Name, g.schema.Partition[free].Name, c.Name)
		default:
			free = i
			continue
		}
		known *= g.card[i]
	}
	if free >= 0 {
		if g.t.Partitions%known != 0 {
			return fmt.Errorf("%s: partitions %d is not a multiple of the other key columns' cardinality %d", g.t.Name, g.t.Partitions, known)
		}
		g.card[free] = g.t.Partitions / known
		known = g.t.Partitions
	}
	if known != g.t.Partitions {
		return fmt.Errorf("%s: the partition key columns' cardinalities multiply to %d, not partitions %d", g.t.Name, known, g.t.Partitions)
	}
	for i, c := range g.schema.Partition {
		if c.Type == "boolean" && g.card[i] > 2 {
			return fmt.Errorf("%s: boolean key column %s cannot take %d values", g.t.Name, c.Name, g.card[i])
		}
	}
	return nil
}

func supportedType(t string) bool {
	switch t {
	case "text", "ascii", "varchar", "int", "bigint", "smallint", "boolean", "double", "float",
		"uuid", "timeuuid", "timestamp", "date", "blob", "set<text>", "list<text>", "map<text, text>":
		return true
	}
	return false
}

// keyIndexes splits partition index p into one index per key column.
func (g *generator) keyIndexes(p int) []int {
	idx := make([]int, len(g.card))
	for i := len(g.card) - 1; i >= 0; i-- {
		idx[i] = p % g.card[i]
		p /= g.card[i]
	}
	return idx
}

// PartitionKey is the values of partition p's key columns, in key order.
func (g *generator) PartitionKey(p int) []any {
	idx := g.keyIndexes(p)
	out := make([]any, len(idx))
	for i, c := range g.schema.Partition {
		out[i] = g.keyValue(c, idx[i])
	}
	return out
}

// KeyString is partition p's key as Cassandra prints it (nodetool
// profileload, getendpoints, system.top_partitions): components joined by ':'.
func (g *generator) KeyString(p int) string {
	vals := g.PartitionKey(p)
	parts := make([]string, len(vals))
	for i, v := range vals {
		switch v := v.(type) {
		case time.Time:
			parts[i] = v.UTC().Format("2006-01-02")
			if g.schema.Partition[i].Type == "timestamp" {
				parts[i] = v.UTC().Format("2006-01-02T15:04:05.000Z")
			}
		default:
			parts[i] = fmt.Sprint(v)
		}
	}
	return strings.Join(parts, ":")
}

func (g *generator) keyValue(c column, idx int) any {
	o := g.t.Columns[c.Name]
	if len(o.Values) > 0 {
		if c.Type == "boolean" {
			return o.Values[idx] == "true"
		}
		return o.Values[idx]
	}
	if c.Type == "boolean" {
		return idx == 1
	}
	return g.indexValue(c, idx, 0)
}

// indexValue is a value of column c made from index i (a key column's
// index, or a clustering column's row index in partition p).
func (g *generator) indexValue(c column, i, p int) any {
	o := g.t.Columns[c.Name]
	step := o.Step
	if step == 0 {
		step = time.Second
		if c.Type == "date" {
			step = 24 * time.Hour
		}
	}
	switch c.Type {
	case "text", "ascii", "varchar":
		format := o.Format
		if format == "" {
			format = c.Name + "-%06d"
		}
		return fmt.Sprintf(format, i)
	case "int":
		return int32(i)
	case "smallint":
		return int16(i % 32768)
	case "bigint":
		return int64(i)
	case "uuid":
		return nameUUID(g.schema.Keyspace, g.schema.Name, c.Name, p, i)
	case "timeuuid":
		return timeUUID(base.Add(time.Duration(i)*step), uint64(p)<<20|uint64(i&0xfffff))
	case "timestamp":
		return base.Add(time.Duration(i) * step)
	case "date":
		return base.Add(time.Duration(i) * step).Truncate(24 * time.Hour)
	case "double":
		return float64(i) + 0.5
	case "float":
		return float32(i) + 0.5
	case "boolean":
		return i%2 == 1
	}
	return nil
}

// Clustering is row r of partition p's clustering values, in key order.
func (g *generator) Clustering(p, r int) []any {
	out := make([]any, len(g.schema.Clustering))
	for i, c := range g.schema.Clustering {
		out[i] = g.indexValue(c, r, p)
	}
	return out
}

// Row is every column of row r of partition p: the names, then the values.
func (g *generator) Row(p, r int) ([]string, []any) {
	names := g.columnNames()
	vals := append(g.PartitionKey(p), g.Clustering(p, r)...)
	rng := rand.New(rand.NewPCG(uint64(p), uint64(r)))
	for _, c := range g.schema.Regular {
		vals = append(vals, g.regularValue(c, r, rng))
	}
	return names, vals
}

func (g *generator) columnNames() []string {
	var names []string
	for _, list := range [][]column{g.schema.Partition, g.schema.Clustering, g.schema.Regular} {
		for _, c := range list {
			names = append(names, c.Name)
		}
	}
	return names
}

func (g *generator) regularValue(c column, r int, rng *rand.Rand) any {
	size := g.t.Columns[c.Name].Size
	if size == 0 {
		size = 16
	}
	switch c.Type {
	case "text", "ascii", "varchar":
		return randomText(rng, size)
	case "blob":
		b := make([]byte, size)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	case "set<text>", "list<text>":
		return []string{randomText(rng, 6), randomText(rng, 6), randomText(rng, 6)}
	case "map<text, text>":
		return map[string]string{"k1": randomText(rng, 6), "k2": randomText(rng, 6)}
	case "uuid":
		return nameUUID(g.schema.Keyspace, g.schema.Name, c.Name, int(rng.Uint32()), r)
	case "timeuuid":
		return timeUUID(base.Add(time.Duration(r)*time.Second), rng.Uint64())
	}
	return g.indexValue(c, r, 0)
}

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 "

func randomText(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[rng.IntN(len(letters))]
	}
	return string(b)
}

// MinRowBytes is a lower bound of one row's serialized size: its text and
// blob payloads. A finding claiming more rows than max bytes ÷ this
// contradicts its own size figure.
func (g *generator) MinRowBytes() int {
	n := 0
	for _, c := range g.schema.Regular {
		switch c.Type {
		case "text", "ascii", "varchar", "blob":
			size := g.t.Columns[c.Name].Size
			if size == 0 {
				size = 16
			}
			n += size
		}
	}
	return max(n, 1)
}

// InsertCQL is the prepared INSERT of every column.
func (g *generator) InsertCQL() string {
	names := g.columnNames()
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ")
	return fmt.Sprintf("INSERT INTO %s.%s (%s) VALUES (%s)", g.schema.Keyspace, g.schema.Name, strings.Join(names, ", "), marks)
}

// DeleteCQL deletes one row by its full primary key.
func (g *generator) DeleteCQL() string {
	var conds []string
	for _, c := range append(append([]column{}, g.schema.Partition...), g.schema.Clustering...) {
		conds = append(conds, c.Name+" = ?")
	}
	return fmt.Sprintf("DELETE FROM %s.%s WHERE %s", g.schema.Keyspace, g.schema.Name, strings.Join(conds, " AND "))
}

// nameUUID is a version-5 style UUID from a name, stable across runs.
func nameUUID(parts ...any) gocql.UUID {
	sum := sha1.Sum([]byte(fmt.Sprint(parts...)))
	var u gocql.UUID
	copy(u[:], sum[:16])
	u[6] = u[6]&0x0f | 0x50
	u[8] = u[8]&0x3f | 0x80
	return u
}

// timeUUID is a version-1 UUID for time t whose clock sequence and node
// come from seq, so two rows at the same time stay distinct and reruns
// write the same value.
func timeUUID(t time.Time, seq uint64) gocql.UUID {
	// 100-ns intervals since 1582-10-15, the UUID epoch.
	ts := uint64(t.UnixNano()/100) + 0x01B21DD213814000
	var u gocql.UUID
	binary.BigEndian.PutUint32(u[0:4], uint32(ts))
	binary.BigEndian.PutUint16(u[4:6], uint16(ts>>32))
	binary.BigEndian.PutUint16(u[6:8], uint16(ts>>48)&0x0fff|0x1000)
	binary.BigEndian.PutUint16(u[8:10], uint16(seq>>48)&0x3fff|0x8000)
	var node [8]byte
	binary.BigEndian.PutUint64(node[:], seq)
	copy(u[10:16], node[2:])
	return u
}

// sortColumns orders a table's columns by role and position.
func sortColumns(cols []column) *tableSchema {
	s := &tableSchema{}
	sort.Slice(cols, func(i, j int) bool {
		return cols[i].Position < cols[j].Position || (cols[i].Position == cols[j].Position && cols[i].Name < cols[j].Name)
	})
	for _, c := range cols {
		switch c.Kind {
		case "partition_key":
			s.Partition = append(s.Partition, c)
		case "clustering":
			s.Clustering = append(s.Clustering, c)
		default:
			s.Regular = append(s.Regular, c)
		}
	}
	return s
}
