package collector

import (
	"errors"
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

func TestGossipInfo(t *testing.T) {
	caps := cassandra50Caps()
	row := func(addr, hostID string, load any) cql.Row {
		return cql.Row{"address": addr, "host_id": hostID, "load": load}
	}
	t.Run("every node's load, own by host ID", func(t *testing.T) {
		f := newFake("10.0.0.1").on(gossipInfoQuery,
			row("10.0.0.1", "other", "5.0E7"),
			row("10.0.0.9", caps.HostID, "1.2345678E7"), // own node, gossiping under another address
			row("10.0.0.3", "h3", nil),                  // joined, no load gossiped yet
		)
		out, _, err := run(t, gossipInfoSource{}, f, caps)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]float64{"10.0.0.1": 5e7, "10.0.0.9": 12345678}; !reflect.DeepEqual(out.Node.GossipLoad, want) {
			t.Errorf("gossip load %v, want %v", out.Node.GossipLoad, want)
		}
		if out.Node.LoadBytes != 12345678 {
			t.Errorf("own load %g, want the host ID's entry", out.Node.LoadBytes)
		}
	})
	for _, tc := range []struct {
		name, load, want string
	}{
		{"garbage", "12 MiB", `load of 10.0.0.1: "12 MiB" is not a byte count`},
		{"negative", "-1.0", `load of 10.0.0.1: "-1.0" is not a byte count`},
		{"NaN", "NaN", `load of 10.0.0.1: "NaN" is not a byte count`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, gossipInfoSource{}, newFake("10.0.0.1").on(gossipInfoQuery, row("10.0.0.1", "h", tc.load)), caps)
			wantErr(t, err, "reading system_views.gossip_info on 10.0.0.1: row 1: "+tc.want)
		})
	}
	t.Run("4.0 has no gossip_info", func(t *testing.T) {
		_, _, err := run(t, gossipInfoSource{}, newFake("n1"), cassandra40Caps())
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("want ErrUnsupported, got %v", err)
		}
		wantErr(t, err, "Cassandra 4.1+")
	})
}

func TestSettings(t *testing.T) {
	t.Run("Cassandra keeps the relevant settings", func(t *testing.T) {
		f := newFake("n1").on("SELECT name, value FROM system_views.settings",
			cql.Row{"name": "partition_size_warn_threshold", "value": nil},
			cql.Row{"name": "compaction_large_partition_warning_threshold", "value": "100MiB"},
			cql.Row{"name": "top_partitions_enabled", "value": "true"},
			cql.Row{"name": "concurrent_reads", "value": "32"},
		)
		out, rows, err := run(t, settingsSource{}, f, cassandra50Caps())
		if err != nil || rows != 4 {
			t.Fatalf("rows %d err %v", rows, err)
		}
		want := map[string]string{"partition_size_warn_threshold": "", "compaction_large_partition_warning_threshold": "100MiB", "top_partitions_enabled": "true"}
		if !reflect.DeepEqual(out.Node.Settings, want) {
			t.Errorf("got %v, want %v", out.Node.Settings, want)
		}
	})
	t.Run("ScyllaDB reads system.config", func(t *testing.T) {
		// db/virtual_tables.cc config table: (name text PK, type, source, value) (research §8.2).
		f := newFake("n1").on("SELECT name, value FROM system.config",
			cql.Row{"name": "compaction_large_partition_warning_threshold_mb", "value": "1000"},
			cql.Row{"name": "compaction_rows_count_warning_threshold", "value": "100000"},
			cql.Row{"name": "memtable_flush_queue_size", "value": "4"},
		)
		out, _, err := run(t, settingsSource{}, f, scyllaCaps())
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"compaction_large_partition_warning_threshold_mb": "1000", "compaction_rows_count_warning_threshold": "100000"}
		if !reflect.DeepEqual(out.Node.Settings, want) {
			t.Errorf("got %v", out.Node.Settings)
		}
	})
	_, _, err := run(t, settingsSource{}, newFake("n1").on("SELECT name, value FROM system_views.settings", cql.Row{"name": nil, "value": "x"}), cassandra50Caps())
	wantErr(t, err, `column "name" is null`)
}
