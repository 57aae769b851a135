// Package cql is partmon's CQL session layer: one long-lived gocql session
// pinned to each node (Node), at most one query in flight per node, a
// backoff while a node keeps failing, and the narrow Querier boundary the
// collector's sources read rows through.
package cql

import (
	"context"
	"fmt"
	"time"
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

func (r Row) value(col string) (any, error) {
	v, ok := r[col]
	if !ok {
		return nil, fmt.Errorf("column %q missing from result", col)
	}
	return v, nil
}

func (r Row) required(col string) (any, error) {
	v, err := r.value(col)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fmt.Errorf("column %q is null", col)
	}
	return v, nil
}

// String reads a non-null text column.
func (r Row) String(col string) (string, error) {
	v, err := r.required(col)
	if err != nil {
		return "", err
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("column %q: want text, got %T", col, v)
	}
	return s, nil
}

// OptString reads a text column that may be null ("" then).
func (r Row) OptString(col string) (string, error) {
	v, err := r.value(col)
	if err != nil || v == nil {
		return "", err
	}
	return r.String(col)
}

// Int64 reads a non-null integer column (bigint, int, smallint, tinyint).
func (r Row) Int64(col string) (int64, error) {
	v, err := r.required(col)
	if err != nil {
		return 0, err
	}
	switch n := v.(type) {
	case int64:
		return n, nil
	case int:
		return int64(n), nil
	case int32:
		return int64(n), nil
	case int16:
		return int64(n), nil
	case int8:
		return int64(n), nil
	}
	return 0, fmt.Errorf("column %q: want an integer, got %T", col, v)
}

// OptInt64 reads an integer column that may be null (0 then).
func (r Row) OptInt64(col string) (int64, error) {
	v, err := r.value(col)
	if err != nil || v == nil {
		return 0, err
	}
	return r.Int64(col)
}

// Float64 reads a non-null double or float column.
func (r Row) Float64(col string) (float64, error) {
	v, err := r.required(col)
	if err != nil {
		return 0, err
	}
	switch f := v.(type) {
	case float64:
		return f, nil
	case float32:
		return float64(f), nil
	}
	return 0, fmt.Errorf("column %q: want a double, got %T", col, v)
}

// OptTime reads a timestamp column that may be null (zero time then).
func (r Row) OptTime(col string) (time.Time, error) {
	v, err := r.value(col)
	if err != nil || v == nil {
		return time.Time{}, err
	}
	t, ok := v.(time.Time)
	if !ok {
		return time.Time{}, fmt.Errorf("column %q: want a timestamp, got %T", col, v)
	}
	return t.UTC(), nil
}

// OptStrings reads a set<text> or list<text> column that may be null.
func (r Row) OptStrings(col string) ([]string, error) {
	v, err := r.value(col)
	if err != nil || v == nil {
		return nil, err
	}
	s, ok := v.([]string)
	if !ok {
		return nil, fmt.Errorf("column %q: want a set of text, got %T", col, v)
	}
	return s, nil
}

// OptStringMap reads a map<text,text> column that may be null.
func (r Row) OptStringMap(col string) (map[string]string, error) {
	v, err := r.value(col)
	if err != nil || v == nil {
		return nil, err
	}
	m, ok := v.(map[string]string)
	if !ok {
		return nil, fmt.Errorf("column %q: want a map of text to text, got %T", col, v)
	}
	return m, nil
}

// KeyCount is one (text, bigint) tuple of a list<tuple<text,bigint>>.
type KeyCount struct {
	Key   string
	Value int64
}

// OptKeyCounts reads a list<tuple<text,bigint>> column that may be null.
func (r Row) OptKeyCounts(col string) ([]KeyCount, error) {
	v, err := r.value(col)
	if err != nil || v == nil {
		return nil, err
	}
	list, ok := v.([][]any)
	if !ok {
		return nil, fmt.Errorf("column %q: want a list of (text, bigint) tuples, got %T", col, v)
	}
	out := make([]KeyCount, 0, len(list))
	for i, tup := range list {
		if len(tup) != 2 {
			return nil, fmt.Errorf("column %q element %d: want 2 tuple fields, got %d", col, i, len(tup))
		}
		k, ok := tup[0].(string)
		if !ok {
			return nil, fmt.Errorf("column %q element %d: want a text key, got %T", col, i, tup[0])
		}
		n, ok := tup[1].(int64)
		if !ok {
			return nil, fmt.Errorf("column %q element %d: want a bigint value, got %T", col, i, tup[1])
		}
		out = append(out, KeyCount{Key: k, Value: n})
	}
	return out, nil
}

// SelectAll is Select with the rows parsed by parse; a parse error names the row.
func SelectAll(ctx context.Context, q Querier, stmt string, args []any, parse func(Row) error) (int, error) {
	n := 0
	err := q.Select(ctx, stmt, args, func(r Row) error {
		n++
		if err := parse(r); err != nil {
			return fmt.Errorf("row %d: %w", n, err)
		}
		return nil
	})
	return n, err
}
