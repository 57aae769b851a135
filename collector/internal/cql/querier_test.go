package cql

import (
	"context"
	"testing"
)

// A virtual table read in one page: every further page would cost the node
// the whole table again.
func TestSelectAllInOnePageAsksForOnePage(t *testing.T) {
	var got int
	q := pageRecorder{page: &got}
	if _, err := SelectAllInOnePage(context.Background(), q, "SELECT x FROM system_views.t", nil, func(*Decoder) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got != OnePageRows {
		t.Errorf("page size %d, want %d", got, OnePageRows)
	}
	if _, err := SelectAll(context.Background(), q, "SELECT x FROM system.t", nil, func(*Decoder) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got != 1000 {
		t.Errorf("page size %d, want the configured 1000", got)
	}
}

// pageRecorder records the page size a request asks for, with a configured
// page size of 1000.
type pageRecorder struct{ page *int }

func (pageRecorder) Address() string { return "10.0.0.1" }

func (p pageRecorder) Select(ctx context.Context, _ string, _ []any, _ func(Row) error) error {
	*p.page = pageSize(ctx, 1000)
	return nil
}
