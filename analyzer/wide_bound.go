package analyzer

import (
	"fmt"
	"math"

	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// An upper bound of the rows of a table's largest partition (fragment):
// what lets the wide_partition rule say "not wide" instead of "unknown".
// The claims (wideOnNode) are lower bounds; this is the other side, and
// each bound here may only over-count, never under-count
// (docs/detection.md, wide_partition, "What decides 'not wide'").

// rowBound is the most rows one partition of a table can hold, and why.
type rowBound struct {
	rows float64 // +Inf when nothing bounds them
	// why says what decided, in words for a note or a test.
	why string
	// fromSchema: the schema alone decides, whatever the data.
	fromSchema bool
}

var unbounded = rowBound{rows: math.Inf(1)}

// rowContentBytes: a row that is written at all carries at least one more
// byte after its header: its primary key liveness (a timestamp vint), its
// deletion, or a cell (a flags byte at least). A row with none of the
// three is empty and not serialized (db/rows/UnfilteredSerializer.java,
// 4.0-5.0).
const rowContentBytes = 1

// clusteringHeaderColumns: a clustering is written with one header vint
// (null and empty flags, two bits a value) per 32 values, then its values
// (db/ClusteringPrefix.java, serializeValuesWithoutSize).
const clusteringHeaderColumns = 32

// nonEmptyVariableBytes: a non-empty value of a variable-length type is
// written as a vint length and at least one byte; an empty value of any
// type (legal for clustering columns of non-compact tables) is a header
// flag and no bytes.
const nonEmptyVariableBytes = 2

// schemaRowBound decides from the schema alone: a table with no clustering
// column holds one row per partition; clustering columns of few values
// (boolean, tinyint) hold at most the product of their values, each plus
// the empty value.
func schemaRowBound(t *model.Table) (rowBound, bool) {
	if t == nil {
		return unbounded, false
	}
	ck := clusteringColumns(t)
	if len(ck) == 0 {
		return rowBound{rows: 1, fromSchema: true, why: "its primary key has no clustering column: one row per partition"}, true
	}
	product := 1.0
	for _, c := range ck {
		n := typeCardinality(c.Type)
		if n == 0 {
			return unbounded, false
		}
		product *= n + 1
	}
	return rowBound{rows: product, fromSchema: true,
		why: fmt.Sprintf("its clustering columns' types allow %s distinct clusterings (with the empty value)", format.Count(product))}, true
}

// fragmentRowBound bounds the rows of a partition fragment of bytes bytes
// (one sstable's share of the partition, the unit of every size source):
// each row takes its header, one byte of content and the clustering's
// header vints, and every row but one (the clustering with every value
// empty: clusterings are distinct) at least the narrowest non-empty
// clustering value. With no schema: the header and content only.
func fragmentRowBound(t *model.Table, bytes float64) (rows float64, perRow int) {
	base, narrowest := minRowBytes+rowContentBytes, 0
	if ck := clusteringColumns(t); len(ck) > 0 {
		base += (len(ck) + clusteringHeaderColumns - 1) / clusteringHeaderColumns
		narrowest = math.MaxInt
		for _, c := range ck {
			w, fixed := fixedClusteringBytes[baseType(c.Type)]
			if !fixed {
				w = nonEmptyVariableBytes
			}
			narrowest = min(narrowest, w)
		}
	}
	perRow = base + narrowest
	if narrowest == 0 {
		return math.Floor(bytes / float64(base)), perRow
	}
	if bytes < float64(base) {
		return 0, perRow
	}
	return 1 + math.Floor((bytes-float64(base))/float64(perRow)), perRow
}

// fragmentBytes is the tightest upper bound a node gives of its largest
// partition fragment: nodetool's bucket bound in bytes when read, unless
// max_partition_size (the same bound rounded up to MiB, read at another
// moment) is larger than it rounds to: a bigger fragment was written in
// between, and the larger figure holds. 0: none.
func fragmentBytes(st *model.TableStats) (bytes float64, source string) {
	fragment, rounded := float64(st.MaxFragmentBytes), float64(st.MaxPartitionBytes)
	switch {
	case fragment > 0 && rounded <= math.Ceil(fragment/mib)*mib:
		return fragment, "nodetool tablehistograms Partition Size max"
	case rounded > 0:
		return rounded, "max_partition_size"
	}
	return 0, ""
}

// rowsUpperBound is the most rows any partition fragment of t holds on any
// node that reported a size: the schema's bound, else the largest of the
// nodes' byte bounds. unbounded when no node gave a size.
func rowsUpperBound(t *tableView) rowBound {
	if b, ok := schemaRowBound(t.schema); ok {
		return b
	}
	best, bytes, source, perRow := -1.0, 0.0, "", 0
	for _, tn := range t.nodes {
		b, src := fragmentBytes(tn.stats)
		if b <= 0 {
			continue
		}
		if rows, pr := fragmentRowBound(t.schema, b); rows > best {
			best, bytes, source, perRow = rows, b, src, pr
		}
	}
	if best < 0 {
		return unbounded
	}
	return rowBound{rows: best, why: fmt.Sprintf("its largest partition fragment is up to %s (%s, per sstable): room for at most %s rows of at least %d bytes",
		format.Bytes(bytes), source, format.Count(best), perRow)}
}
