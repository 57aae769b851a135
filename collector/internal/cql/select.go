package cql

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/gocql/gocql"
)

// pinned is the Querier of one node's current session.
type pinned[P any] struct {
	node    *Node[P]
	session *gocql.Session
}

func (q *pinned[P]) Address() string { return q.node.addr }

// Select runs one statement on the pinned node. It waits for the node's
// single query slot, so sources never pile queries onto one node.
func (q *pinned[P]) Select(ctx context.Context, stmt string, args []any, each func(Row) error) error {
	n := q.node
	if err := n.backoffErr(); err != nil {
		return err
	}
	select {
	case n.inflight <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("waiting for %s's query slot: %w", n.addr, ctx.Err())
	}
	defer func() { <-n.inflight }()
	defer n.used()
	session, err := n.sessionFor(q)
	if err != nil {
		n.failed(ctx, err)
		return err
	}

	n.queries.Add(1)
	iter := session.Query(stmt, args...).
		WithContext(ctx).
		Consistency(n.opts.Consistency).
		PageSize(pageSize(ctx, n.opts.PageSize)).
		Idempotent(true).
		Iter()
	if h := iter.Host(); h != nil && h.ConnectAddress().String() != n.addr {
		_ = iter.Close()
		return fmt.Errorf("%s answered a query pinned to %s", h.ConnectAddress(), n.addr)
	}
	cols := iter.Columns()
	for {
		dest, ptrs, names := scanTargets(cols)
		if !iter.Scan(dest...) {
			break
		}
		row := make(Row, len(names))
		for i, name := range names {
			row[name] = derefNullable(ptrs[i])
		}
		if err := each(row); err != nil {
			_ = iter.Close()
			return err // the node answered; the answer was bad
		}
	}
	err = iter.Close()
	switch {
	case err == nil || IsServerError(err):
		// A CQL error response still proves the node is alive.
		n.succeeded()
	default:
		n.failed(ctx, err)
	}
	return err
}

// scanTargets allocates one **T per result column, so NULL stays
// distinguishable from a zero value (gocql sets the inner pointer to nil).
// Top-level tuples are flattened the way gocql's own RowData does.
func scanTargets(cols []gocql.ColumnInfo) (dest []any, ptrs []reflect.Value, names []string) {
	add := func(name string, t gocql.TypeInfo) {
		v, err := t.NewWithError()
		if err != nil {
			var raw []byte // unknown type: keep the raw bytes rather than fail the row
			v = &raw
		}
		pp := reflect.New(reflect.TypeOf(v))
		dest = append(dest, pp.Interface())
		ptrs = append(ptrs, pp)
		names = append(names, name)
	}
	for _, c := range cols {
		if tup, ok := c.TypeInfo.(gocql.TupleTypeInfo); ok {
			for i, e := range tup.Elems {
				add(gocql.TupleColumnName(c.Name, i), e)
			}
			continue
		}
		add(c.Name, c.TypeInfo)
	}
	return dest, ptrs, names
}

func derefNullable(pp reflect.Value) any {
	p := pp.Elem() // *T
	if p.IsNil() {
		return nil
	}
	v := p.Elem().Interface()
	if u, ok := v.(gocql.UUID); ok {
		return u.String()
	}
	return v
}

// IsServerError says whether err is an answer from the node (a CQL error
// response), which proves the node is alive, as opposed to a transport failure.
func IsServerError(err error) bool {
	var re gocql.RequestError
	return errors.As(err, &re)
}
