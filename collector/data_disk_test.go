package collector

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// writeTree writes files of the given sizes under dir (paths relative).
func writeTree(t *testing.T, dir string, files map[string]int) {
	t.Helper()
	for name, size := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, make([]byte, size), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDataDiskMeasuresTreesAndFileStores(t *testing.T) {
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	// A table's sstables, a snapshot and a system table: the whole tree counts.
	writeTree(t, a, map[string]int{"ks/t-1/nb-1-big-Data.db": 1000, "ks/t-1/snapshots/s1/nb-1-big-Data.db": 300, "system/local-7/nb-2-big-Data.db": 20})
	writeTree(t, b, map[string]int{"ks/t-1/nb-3-big-Data.db": 4000})
	writeTree(t, c, map[string]int{"ks/t-1/nb-4-big-Data.db": 7})
	// a and b share a file store (its usable space counts once), c has its own.
	stores := map[string]struct {
		dev    uint64
		usable int64
	}{a: {1, 1 << 20}, b: {1, 1 << 20}, c: {2, 5000}}
	src := newDataDiskSource(DataDiskConfig{Directories: []string{a, b, c}})
	src.store = func(dir string) (uint64, int64, error) { s := stores[dir]; return s.dev, s.usable, nil }

	out := newOutput("10.0.0.1")
	files, err := src.Collect(context.Background(), Input{Address: "10.0.0.1", Own: true}, out)
	if err != nil {
		t.Fatal(err)
	}
	want := &model.DataDisk{UsedBytes: 1000 + 300 + 20 + 4000 + 7, UsableBytes: 1<<20 + 5000, Directories: 3}
	if !reflect.DeepEqual(out.Node.DataDisk, want) || files != 5 {
		t.Errorf("got %+v from %d files, want %+v from 5", out.Node.DataDisk, files, want)
	}
}

func TestDataDiskRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name        string
		dirs        []string
		own         bool
		unsupported bool
		want        string
	}{
		{"another node's", []string{dir}, false, true, "the first host's"},
		{"a directory that is not there", []string{filepath.Join(dir, "gone")}, true, false, "gone"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := newDataDiskSource(DataDiskConfig{Directories: tc.dirs})
			_, err := src.Collect(context.Background(), Input{Address: "10.0.0.1", Own: tc.own}, newOutput("10.0.0.1"))
			wantErr(t, err, tc.want)
			if errors.Is(err, ErrUnsupported) != tc.unsupported {
				t.Errorf("unsupported %v, want %v: %v", errors.Is(err, ErrUnsupported), tc.unsupported, err)
			}
		})
	}
}

func TestDataDiskConfig(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  DataDiskConfig
		mode string
		want string // "" when valid
	}{
		{"off", DataDiskConfig{}, ModeCluster, ""},
		{"sidecar", DataDiskConfig{Directories: []string{"/var/lib/cassandra/data"}}, ModeSidecar, ""},
		{"cluster mode", DataDiskConfig{Directories: []string{"/var/lib/cassandra/data"}}, ModeCluster, "need mode"},
		{"relative", DataDiskConfig{Directories: []string{"data"}}, ModeSidecar, "not an absolute path"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := tc.cfg.validate(tc.mode)
			if tc.want == "" {
				if len(errs) > 0 {
					t.Fatalf("want valid, got %v", errs)
				}
				return
			}
			wantErr(t, errors.Join(errs...), tc.want)
		})
	}
	regs := registry(Config{}, nil)
	for _, r := range regs {
		if r.src.Name() == "data_disk" && r.enabled {
			t.Error("data_disk is on without directories")
		}
	}
}

func TestGossipInfoDiskUsage(t *testing.T) {
	caps := cassandra50Caps()
	caps.VirtualColumns["gossip_info"] = set("address", "port", "host_id", "load", "disk_usage")
	f := newFake("10.0.0.1").on(gossipInfoWithDiskUsage,
		cql.Row{"address": "10.0.0.1", "host_id": caps.HostID, "load": "1.0E6", "disk_usage": "FULL"},
		cql.Row{"address": "10.0.0.2", "host_id": "h2", "load": "1.0E6", "disk_usage": "SPACIOUS"},
		cql.Row{"address": "10.0.0.3", "host_id": "h3", "load": "1.0E6", "disk_usage": nil}, // not gossiped yet
	)
	out, _, err := run(t, gossipInfoSource{}, f, caps)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"10.0.0.1": "FULL", "10.0.0.2": "SPACIOUS"}; !reflect.DeepEqual(out.Node.DiskUsageStates, want) {
		t.Errorf("disk usage states %v, want %v", out.Node.DiskUsageStates, want)
	}
}
