package collector

import (
	"reflect"
	"testing"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

func TestThreadPools(t *testing.T) {
	row := func(name string, pending any) cql.Row {
		return cql.Row{"name": name, "active_tasks": 1, "pending_tasks": pending, "blocked_tasks": int64(0),
			"blocked_tasks_all_time": int64(2), "completed_tasks": int64(99)}
	}
	f := newFake("n1").on(threadPoolsQuery, row("ReadStage", 7), row("MutationStage", 0))
	out, _, err := run(t, threadPoolsSource{}, f, cassandra50Caps())
	if err != nil {
		t.Fatal(err)
	}
	want := []model.ThreadPool{
		{Name: "MutationStage", Active: 1, Pending: 0, BlockedAllTime: 2, Completed: 99},
		{Name: "ReadStage", Active: 1, Pending: 7, BlockedAllTime: 2, Completed: 99},
	}
	if !reflect.DeepEqual(out.Node.ThreadPools, want) {
		t.Errorf("got %+v", out.Node.ThreadPools)
	}
	_, _, err = run(t, threadPoolsSource{}, newFake("n1").on(threadPoolsQuery, row("ReadStage", nil)), cassandra50Caps())
	wantErr(t, err, `reading system_views.thread_pools on n1: row 1: column "pending_tasks" is null`)
}
