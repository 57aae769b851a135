package collector

import (
	"errors"
	"strings"
	"testing"
)

func TestReleaseVersion(t *testing.T) {
	for _, tc := range []struct {
		v            string
		major, minor int
		ok           bool
	}{
		{"4.0.19", 4, 0, true},
		{"4.1", 4, 1, true},
		{"5.0-rc1", 5, 0, true},
		{"5", 5, 0, true},
		{"2025.1.14-0.20250101.abcdef", 2025, 1, true},
		{"", 0, 0, false},
		{"v5.0", 0, 0, false},
	} {
		major, minor, ok := releaseVersion(tc.v)
		if major != tc.major || minor != tc.minor || ok != tc.ok {
			t.Errorf("releaseVersion(%q) = %d, %d, %v; want %d, %d, %v", tc.v, major, minor, ok, tc.major, tc.minor, tc.ok)
		}
	}
	for _, tc := range []struct {
		v, since string
		below    bool
	}{
		{"4.0.19", "4.1", true},
		{"4.1.10", "4.1", false},
		{"4.1.10", "5.0", true},
		{"5.0.8", "5.0", false},
		{"3.11.17", "4.0", true},
		{"unknown", "4.0", false},
	} {
		if got := versionBelow(tc.v, tc.since); got != tc.below {
			t.Errorf("versionBelow(%q, %q) = %v", tc.v, tc.since, got)
		}
	}
}

// One gate form covers every kind of gate the sources had: a table that
// must exist, a version, an engine, and a table ScyllaDB must have.
func TestGateCheck(t *testing.T) {
	c41 := cassandra50Caps()
	c41.Version, c41.ReleaseVersion = "4.1.10", "4.1.10"
	delete(c41.VirtualColumns, "max_sstable_size")
	noConfig := scyllaCaps("keyspace_name")
	delete(noConfig.SystemTables, "config")
	settings := Gate{Cassandra: "4.0", Table: "system_views.settings", ScyllaDB: true, ScyllaTable: "system.config"}
	for _, tc := range []struct {
		name string
		gate Gate
		caps *Capabilities
		want string // "" passes
	}{
		{"a virtual table the node has", virtualTable("gossip_info", "4.1"), cassandra50Caps(), ""},
		{"a virtual table the node lacks", virtualTable("max_sstable_size", "5.0"), c41,
			"system_views.max_sstable_size does not exist on this node (Cassandra 5.0+)"},
		{"a system table the node lacks", cassandraOnly("4.1", "system.top_partitions", "system.large_partitions"), cassandra40Caps(),
			"system.top_partitions does not exist on this node (Cassandra 4.1+)"},
		{"Cassandra-only on ScyllaDB", cassandraOnly("4.1", "system.top_partitions", "system.large_partitions"), scyllaCaps("keyspace_name"),
			"x is Cassandra-only (ScyllaDB: system.large_partitions)"},
		{"a version the node runs", Gate{Cassandra: "5.0"}, cassandra50Caps(), ""},
		{"an older version", Gate{Cassandra: "5.0", Why: "its output differs"}, c41,
			"x needs Cassandra 5.0+ (this node runs 4.1.10): its output differs"},
		{"ScyllaDB-only on Cassandra", Gate{ScyllaDB: true}, cassandra50Caps(), "x is ScyllaDB-only"},
		{"ScyllaDB with the table", settings, scyllaCaps("keyspace_name"), ""},
		{"ScyllaDB without the table", settings, noConfig, "system.config does not exist on this node"},
		{"no session: Collect judges", Gate{ScyllaDB: true}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.gate.check("x", tc.caps)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("want it to pass, got %v", err)
			case tc.want != "" && (!errors.Is(err, ErrUnsupported) || !strings.HasSuffix(err.Error(), tc.want)):
				t.Errorf("got %v, want ErrUnsupported: %q", err, tc.want)
			}
		})
	}
}

func TestGateOn(t *testing.T) {
	for _, tc := range []struct {
		gate Gate
		want string
	}{
		{everywhere, "all"},
		{virtualTable("gossip_info", "4.1"), "Cassandra 4.1+"},
		{Gate{ScyllaDB: true, ScyllaTable: "system.large_rows"}, "ScyllaDB"},
		{Gate{Cassandra: "4.0", Table: "system_views.settings", ScyllaDB: true, ScyllaTable: "system.config"}, "Cassandra 4.0+, ScyllaDB"},
	} {
		if got := tc.gate.On(); got != tc.want {
			t.Errorf("%+v: On() = %q, want %q", tc.gate, got, tc.want)
		}
	}
}
