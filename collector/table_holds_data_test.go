package collector

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// Tables are ruled empty only on fresh, successful disk and write figures
// of the same node.
func TestHolding(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	disk := func(tables map[string]int64) *Output {
		o := newOutput("10.0.0.1")
		for t, b := range tables {
			o.Node.Stats(splitKey(t)).DiskUsageBytes = b
		}
		return o
	}
	writes := func(tables map[string]int64) *Output {
		o := newOutput("10.0.0.1")
		for t, n := range tables {
			o.Node.Stats(splitKey(t)).LocalWrites.Count = n
		}
		return o
	}
	type read struct {
		source string
		out    *Output
		err    error
		age    time.Duration
	}
	both := []read{
		{"disk_usage", disk(map[string]int64{"ks.on_disk": 1 << 20, "ks.written": 0, "ks.empty": 0}), nil, time.Minute},
		{"local_write_latency", writes(map[string]int64{"ks.on_disk": 0, "ks.written": 3, "ks.empty": 0}), nil, time.Minute},
	}
	tests := []struct {
		name  string
		reads []read
		node  string
		want  map[string]bool
	}{
		{"disk or a write holds; neither is empty", both, "10.0.0.1", map[string]bool{"ks.on_disk": true, "ks.written": true}},
		{"another node's figures say nothing of this one", both, "10.0.0.2", nil},
		{"no write figures", both[:1], "10.0.0.1", nil},
		{"no disk figures", both[1:], "10.0.0.1", nil},
		{"stale write figures", []read{both[0], {both[1].source, both[1].out, nil, holdingFreshFor + time.Second}}, "10.0.0.1", nil},
		{"write figures at the bound", []read{both[0], {both[1].source, both[1].out, nil, holdingFreshFor}}, "10.0.0.1",
			map[string]bool{"ks.on_disk": true, "ks.written": true}},
		{"the last disk read failed (older data kept)", []read{both[0], both[1], {"disk_usage", nil, errors.New("timeout"), 0}}, "10.0.0.1", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}})
			now := t0.Add(10 * time.Minute)
			for _, r := range tt.reads {
				c.now = func() time.Time { return now.Add(-r.age) }
				c.record(r.source, "10.0.0.1", "", r.out, 3, r.err, now.Add(-r.age))
			}
			c.now = func() time.Time { return now }
			if got := c.holding(tt.node); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("holding = %v, want %v", got, tt.want)
			}
		})
	}
}

func splitKey(t string) (string, string) {
	ks, tb, _ := strings.Cut(t, ".")
	return ks, tb
}

func TestSplitByHolding(t *testing.T) {
	tables := []string{"a.t1", "a.t2", "b.t1", "c.t1"}
	tests := []struct {
		name      string
		holding   map[string]bool
		asked     []string
		empty     []string
		wholeKeys []string
	}{
		{"no evidence: every table, by keyspace", nil, tables, nil, []string{"a", "b", "c"}},
		{"a keyspace partly empty is asked table by table", map[string]bool{"a.t1": true, "b.t1": true, "c.t1": true},
			[]string{"a.t1", "b.t1", "c.t1"}, []string{"a.t2"}, []string{"b", "c"}},
		{"nothing holds data: nothing asked", map[string]bool{}, nil, tables, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			asked, empty, whole := splitByHolding(tables, tt.holding)
			var wholeKeys []string
			for _, ks := range []string{"a", "b", "c"} {
				if whole[ks] {
					wholeKeys = append(wholeKeys, ks)
				}
			}
			if !reflect.DeepEqual(asked, tt.asked) || !reflect.DeepEqual(empty, tt.empty) || !reflect.DeepEqual(wholeKeys, tt.wholeKeys) {
				t.Errorf("asked %v, empty %v, whole %v; want %v, %v, %v", asked, empty, wholeKeys, tt.asked, tt.empty, tt.wholeKeys)
			}
		})
	}
}
