package ring

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseReplication(t *testing.T) {
	tests := []struct {
		name string
		in   map[string]string
		want Replication
	}{
		{
			name: "simple, full class name",
			in:   map[string]string{"class": "org.apache.cassandra.locator.SimpleStrategy", "replication_factor": "3"},
			want: Replication{Class: StrategySimple, Factor: ReplicationFactor{All: 3}},
		},
		{
			name: "simple, short class name",
			in:   map[string]string{"class": "SimpleStrategy", "replication_factor": "1"},
			want: Replication{Class: StrategySimple, Factor: ReplicationFactor{All: 1}},
		},
		{
			name: "simple, transient",
			in:   map[string]string{"class": "SimpleStrategy", "replication_factor": "3/1"},
			want: Replication{Class: StrategySimple, Factor: ReplicationFactor{All: 3, Transient: 1}},
		},
		{
			name: "simple, factor 0",
			in:   map[string]string{"class": "SimpleStrategy", "replication_factor": "0"},
			want: Replication{Class: StrategySimple},
		},
		{
			name: "network topology, full class name, transient DC",
			in:   map[string]string{"class": "org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1": "3", "dc2": "3/1", "dc3": "0"},
			want: Replication{Class: StrategyNetworkTopology, DCs: map[string]ReplicationFactor{
				"dc1": {All: 3}, "dc2": {All: 3, Transient: 1}, "dc3": {},
			}},
		},
		{
			name: "network topology, short name, no DC",
			in:   map[string]string{"class": "NetworkTopologyStrategy"},
			want: Replication{Class: StrategyNetworkTopology, DCs: map[string]ReplicationFactor{}},
		},
		{
			name: "local strategy of system keyspaces",
			in:   map[string]string{"class": "org.apache.cassandra.locator.LocalStrategy"},
			want: Replication{Class: StrategyLocal},
		},
		{
			name: "scylla everywhere strategy",
			in:   map[string]string{"class": "org.apache.cassandra.locator.EverywhereStrategy"},
			want: Replication{Class: StrategyEverywhere},
		},
		{
			name: "class name in another case",
			in:   map[string]string{"class": "networktopologystrategy", "dc1": "2"},
			want: Replication{Class: StrategyNetworkTopology, DCs: map[string]ReplicationFactor{"dc1": {All: 2}}},
		},
		{
			name: "unknown class kept raw",
			in:   map[string]string{"class": "org.apache.cassandra.locator.OldNetworkTopologyStrategy", "replication_factor": "2"},
			want: Replication{Class: "org.apache.cassandra.locator.OldNetworkTopologyStrategy"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseReplication(tt.in)
			if err != nil {
				t.Fatalf("ParseReplication(%v): %v", tt.in, err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("ParseReplication(%v) = %+v, want %+v", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseReplicationErrors(t *testing.T) {
	tests := []struct {
		name    string
		in      map[string]string
		mention string // the error must name the problem
	}{
		{"nil map", nil, "no class"},
		{"no class", map[string]string{"replication_factor": "3"}, "no class"},
		{"blank class", map[string]string{"class": "  "}, "no class"},
		{"simple without factor", map[string]string{"class": "SimpleStrategy"}, "replication_factor"},
		{"simple factor not a number", map[string]string{"class": "SimpleStrategy", "replication_factor": "three"}, `"three"`},
		{"simple factor empty", map[string]string{"class": "SimpleStrategy", "replication_factor": ""}, `""`},
		{"simple factor negative", map[string]string{"class": "SimpleStrategy", "replication_factor": "-1"}, "negative"},
		{"simple factor with spaces", map[string]string{"class": "SimpleStrategy", "replication_factor": " 3"}, `" 3"`},
		{"transient equals all", map[string]string{"class": "SimpleStrategy", "replication_factor": "3/3"}, "fewer"},
		{"transient above all", map[string]string{"class": "SimpleStrategy", "replication_factor": "2/5"}, "fewer"},
		{"transient negative", map[string]string{"class": "SimpleStrategy", "replication_factor": "3/-1"}, "negative"},
		{"three parts", map[string]string{"class": "SimpleStrategy", "replication_factor": "3/1/1"}, `"3/1/1"`},
		{"missing transient", map[string]string{"class": "SimpleStrategy", "replication_factor": "3/"}, `"3/"`},
		{"overflowing factor", map[string]string{"class": "SimpleStrategy", "replication_factor": "99999999999999999999"}, "99999999999999999999"},
		{"nts bad dc factor", map[string]string{"class": "NetworkTopologyStrategy", "dc1": "3", "dc2": "x"}, `"dc2"`},
		{"nts replication_factor", map[string]string{"class": "NetworkTopologyStrategy", "replication_factor": "3"}, "replication_factor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseReplication(tt.in)
			if err == nil {
				t.Fatalf("ParseReplication(%v) = %+v, want an error", tt.in, got)
			}
			if !strings.Contains(err.Error(), tt.mention) {
				t.Errorf("ParseReplication(%v) error %q does not mention %q", tt.in, err, tt.mention)
			}
		})
	}
}

func TestReplicationFactorInAndFull(t *testing.T) {
	nts := Replication{Class: StrategyNetworkTopology, DCs: map[string]ReplicationFactor{"dc1": {All: 3, Transient: 1}, "dc2": {All: 2}}}
	simple := Replication{Class: StrategySimple, Factor: ReplicationFactor{All: 2}}
	tests := []struct {
		name string
		r    Replication
		dc   string
		want int
	}{
		{"nts dc with transient counts all replicas", nts, "dc1", 3},
		{"nts plain dc", nts, "dc2", 2},
		{"nts dc not in map", nts, "dc9", 0},
		{"simple ignores the dc", simple, "anything", 2},
		{"everywhere depends on the ring", Replication{Class: StrategyEverywhere}, "dc1", 0},
		{"local", Replication{Class: StrategyLocal}, "dc1", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.FactorIn(tt.dc); got != tt.want {
				t.Errorf("FactorIn(%q) = %d, want %d", tt.dc, got, tt.want)
			}
		})
	}
	if got := (ReplicationFactor{All: 3, Transient: 1}).Full(); got != 2 {
		t.Errorf("3/1 Full() = %d, want 2", got)
	}
	for _, s := range []string{"3", "3/1", "0"} {
		f, err := ParseReplicationFactor(s)
		if err != nil || f.String() != s {
			t.Errorf("ParseReplicationFactor(%q) = %v, %v; String() = %q", s, f, err, f.String())
		}
	}
}

// FuzzParseReplication checks that no replication map makes the parser
// panic and that every accepted factor obeys Cassandra's rules.
func FuzzParseReplication(f *testing.F) {
	// Two options besides the class: the second DC's (or a stray key) too,
	// as multi-DC keyspaces carry them.
	f.Add("SimpleStrategy", "replication_factor", "3/1", "", "")
	f.Add("org.apache.cassandra.locator.NetworkTopologyStrategy", "dc1", "2", "dc2", "1")
	f.Add("NetworkTopologyStrategy", "dc1", "3/1", "dc2", "0")
	f.Add("NetworkTopologyStrategy", "dc1", "3", "replication_factor", "2")
	f.Add(".", "", "/", "class", "x")
	f.Add("NetworkTopologyStrategy", "dc1", "-0/+0", "dc1", "1")
	f.Fuzz(func(t *testing.T, class, key, value, key2, value2 string) {
		opts := map[string]string{"class": class, key: value}
		if key2 != "class" && key2 != key {
			opts[key2] = value2
		}
		r, err := ParseReplication(opts)
		if err != nil {
			return
		}
		if r.Class == "" && len(r.DCs) > 0 {
			t.Errorf("factors per DC without a class: %+v from %v", r, opts)
		}
		for dc := range r.DCs {
			if _, ok := opts[dc]; !ok || dc == "class" {
				t.Errorf("a factor for %q, which the options do not name: %+v from %v", dc, r, opts)
			}
		}
		check := func(rf ReplicationFactor) {
			if rf.All < 0 || rf.Transient < 0 || (rf.Transient > 0 && rf.Transient >= rf.All) {
				t.Errorf("accepted invalid factor %+v from %q", rf, value)
			}
		}
		check(r.Factor)
		for _, rf := range r.DCs {
			check(rf)
		}
	})
}
