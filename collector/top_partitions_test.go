package collector

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

func TestTopPartitions(t *testing.T) {
	when := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	row := func(top any) cql.Row {
		return cql.Row{"keyspace_name": "pm_tomb", "table_name": "queue", "top_type": "TOMBSTONES", "top": top, "last_update": when}
	}
	t.Run("list of (key, value) tuples", func(t *testing.T) {
		f := newFake("n1").on(topPartitionsQuery, row([][]any{{"jobs", int64(19995)}, {"other", int64(6000)}}), row(nil))
		out, rows, err := run(t, topPartitionsSource{}, f, cassandra50Caps())
		if err != nil || rows != 2 {
			t.Fatalf("rows %d err %v", rows, err)
		}
		want := []model.TopPartition{
			{Keyspace: "pm_tomb", Table: "queue", Type: "TOMBSTONES", Key: "jobs", Value: 19995, LastUpdate: when},
			{Keyspace: "pm_tomb", Table: "queue", Type: "TOMBSTONES", Key: "other", Value: 6000, LastUpdate: when},
		}
		if !reflect.DeepEqual(out.Node.TopPartitions, want) {
			t.Errorf("got %+v", out.Node.TopPartitions)
		}
	})
	for _, tc := range []struct {
		name string
		top  any
		want string
	}{
		{"tuple of three", [][]any{{"k", int64(1), int64(2)}}, `column "top" element 0: want 2 tuple fields, got 3`},
		{"value not a bigint", [][]any{{"k", "12"}}, `column "top" element 0: want a bigint value, got string`},
		{"key not text", [][]any{{int64(1), int64(2)}}, `column "top" element 0: want a text key, got int64`},
		{"not a list", "jobs=19995", `column "top": want a list of (text, bigint) tuples, got string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, topPartitionsSource{}, newFake("n1").on(topPartitionsQuery, row(tc.top)), cassandra50Caps())
			wantErr(t, err, "reading system.top_partitions on n1: row 1: "+tc.want)
		})
	}
	t.Run("4.0 has no top_partitions", func(t *testing.T) {
		_, _, err := run(t, topPartitionsSource{}, newFake("n1"), cassandra40Caps())
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("want ErrUnsupported, got %v", err)
		}
	})
}
