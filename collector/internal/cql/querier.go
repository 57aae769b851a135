// Package cql is partmon's CQL session layer: one long-lived gocql session
// pinned to each node (Node), at most one query in flight per node, a
// backoff while a node keeps failing, and the narrow Querier boundary the
// collector's sources read rows through.
package cql

import (
	"context"
	"fmt"
)

// Querier is the narrow boundary between sources and the driver: it runs
// one read-only statement on one node and hands back rows. A Node's querier
// (select.go) implements it; unit tests use a fake at the row level.
type Querier interface {
	// Address is the node this querier reads from.
	Address() string
	// Select runs stmt with args on that node, page by page, and calls each
	// once per row. It stops at the first error each returns.
	Select(ctx context.Context, stmt string, args []any, each func(Row) error) error
}

// Row is one result row by column name. A NULL is a nil value. Non-null
// values have the Go types the gocql adapter produces: string (text, ascii,
// inet, uuid, timeuuid), int64 (bigint, counter), int (int), float64
// (double), float32 (float), bool, time.Time (timestamp), []string
// (set/list<text>), map[string]string, [][]any (list<tuple<...>>).
type Row map[string]any

// OnePageRows is the page size of SelectAllInOnePage: more rows than any
// per-table virtual table has at 10,000 tables (one row per table, system
// tables included), about 100 bytes each, far below the protocol's 16 MiB
// frame limit.
const OnePageRows = 20000

type onePageKey struct{}

// SelectAllInOnePage is SelectAll asking for up to OnePageRows rows per
// page. For a virtual table that builds its whole result on every request
// (Cassandra's AbstractVirtualTable.select builds data() for each page and
// only then cuts the page out of it), every further page costs the node
// the whole table again.
func SelectAllInOnePage(ctx context.Context, q Querier, stmt string, args []any, parse func(*Decoder) error) (int, error) {
	return SelectAll(context.WithValue(ctx, onePageKey{}, true), q, stmt, args, parse)
}

// pageSize is the page size a request in ctx asks for.
func pageSize(ctx context.Context, configured int) int {
	if ctx.Value(onePageKey{}) != nil {
		return max(OnePageRows, configured)
	}
	return configured
}

// SelectAll is Select with each row read by parse through a Decoder. A
// column the Decoder could not read comes before any error parse returns
// (parse then saw zero values); either error names the row.
func SelectAll(ctx context.Context, q Querier, stmt string, args []any, parse func(*Decoder) error) (int, error) {
	n := 0
	err := q.Select(ctx, stmt, args, func(r Row) error {
		n++
		d := NewDecoder(r)
		err := parse(d)
		if d.err != nil {
			err = d.err
		}
		if err != nil {
			return fmt.Errorf("row %d: %w", n, err)
		}
		return nil
	})
	return n, err
}
