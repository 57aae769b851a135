package collector

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
	tokenring "github.com/partmon/partmon/ring"
)

// replicaView is one node's CQL endpoint on the shared table: it records
// the token each range read starts after.
type replicaView struct {
	*ringTable
	addr   string
	starts *[]routedRead
}

type routedRead struct {
	addr  string
	after int64
}

func (v replicaView) Address() string { return v.addr }

func (v replicaView) Select(ctx context.Context, stmt string, args []any, each func(cql.Row) error) error {
	if strings.Contains(stmt, "> ? AND") {
		*v.starts = append(*v.starts, routedRead{v.addr, args[0].(int64)})
	}
	return v.ringTable.Select(ctx, stmt, args, each)
}

// Each range is read on a replica holding it, the load spread over the
// replicas, an unreachable replica's ranges going to another, and the
// rows-per-second and ring-share limits holding over all of them.
func TestKeySamplerSpreadsRangesOverReplicas(t *testing.T) {
	r := rand.New(rand.NewPCG(53, 2))
	var nodes []model.Node
	for _, a := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"} {
		n := model.Node{Address: a, HostID: "host-" + a, DC: "dc1", Rack: "r1"}
		for range 8 {
			n.Tokens = append(n.Tokens, int64(r.Uint64()))
		}
		slices.Sort(n.Tokens)
		nodes = append(nodes, n)
	}
	repl, err := tokenring.ParseReplication(map[string]string{"class": "SimpleStrategy", "replication_factor": "2"})
	if err != nil {
		t.Fatal(err)
	}
	ranges, dcs, err := tokenring.ReplicaSets(nodes, repl)
	if err != nil {
		t.Fatal(err)
	}
	holds := func(addr string, after int64) bool { // the oracle: a linear walk of the ranges
		for i, tr := range ranges {
			in := tr.Start < after+1 && after+1 <= tr.End
			if i == 0 && tr.Start >= tr.End { // the wrapping range
				in = after+1 > tr.Start || after+1 <= tr.End
			}
			if in {
				return slices.Contains(dcs[0].Holders[i], "host-"+addr)
			}
		}
		return false
	}
	tests := []struct {
		name string
		down string // a replica that cannot be reached
	}{
		{name: "every replica up"},
		{name: "one replica down", down: "10.0.0.3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newRingTable(20000, func(i int) int { return 1 + i%3 })
			var reads []routedRead
			first := replicaView{f, "10.0.0.1", &reads}
			routes, err := placeRoutes(first, nodes, repl, "")
			if err != nil {
				t.Fatal(err)
			}
			if routes.nodes != len(nodes) {
				t.Errorf("%d nodes in the DC read, want %d", routes.nodes, len(nodes))
			}
			routes.open = func(_ context.Context, addr string) (cql.Querier, error) {
				if addr == tt.down {
					return nil, errors.New("connection refused")
				}
				return replicaView{f, addr, &reads}, nil
			}
			lim := withSampleDefaults(model.SampleLimits{RowsPerSecond: 1000, PerRange: 2})
			s := &keySampler{q: first, routes: routes, lim: lim, rowCap: 100000, now: func() time.Time { return f.now },
				sleep: func(_ context.Context, d time.Duration) error {
					f.now = f.now.Add(max(d, 0))
					return nil
				},
				sample: &model.KeySample{Keyspace: "ks", Table: "t", Columns: ringCols, Limits: lim}, stmts: sampleStatements("ks", "t", ringCols)}
			if err := s.run(context.Background()); err != nil {
				t.Fatal(err)
			}
			byNode := map[string]int{}
			for _, rd := range reads {
				if !holds(rd.addr, rd.after) {
					t.Errorf("a range after %d read on %s, which holds no replica of it", rd.after, rd.addr)
				}
				byNode[rd.addr]++
			}
			total := 0
			for _, n := range nodes {
				switch got := byNode[n.Address]; {
				case n.Address == tt.down && got > 0:
					t.Errorf("%d range reads on %s, which is down", got, n.Address)
				case n.Address != tt.down && got < len(reads)/8:
					t.Errorf("%s read %d of %d range reads: the load is not spread (%v)", n.Address, got, len(reads), byNode)
				}
				total += s.sample.Cost.RequestsByNode[n.Address]
			}
			if total != s.sample.Cost.Requests {
				t.Errorf("requests by node add up to %d, not the %d sent", total, s.sample.Cost.Requests)
			}
			if s.sample.Cost.RingShare > lim.MaxRingShare+1e-9 {
				t.Errorf("read %.4f of the ring against %.4f", s.sample.Cost.RingShare, lim.MaxRingShare)
			}
			if want := time.Duration(float64(s.sample.Cost.RowsRead) / 1000 * float64(time.Second)); f.now.Sub(time.Unix(0, 0)) < want {
				t.Errorf("%d rows in %v over %d replicas: faster than 1,000 rows/s", s.sample.Cost.RowsRead, f.now.Sub(time.Unix(0, 0)), len(byNode))
			}
		})
	}
}

// Ranges go only to replicas in the DC read: the configured local DC, else
// the first host's; a DC the keyspace has no replicas in is an error.
func TestSampleRoutesStayInTheirDC(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	dcOf := map[string]string{"10.0.1.1": "dc1", "10.0.1.2": "dc1", "10.0.2.1": "dc2", "10.0.2.2": "dc2"}
	var nodes []model.Node
	for _, a := range []string{"10.0.1.1", "10.0.1.2", "10.0.2.1", "10.0.2.2"} {
		n := model.Node{Address: a, HostID: "host-" + a, DC: dcOf[a], Rack: "r1"}
		for range 4 {
			n.Tokens = append(n.Tokens, int64(r.Uint64()))
		}
		slices.Sort(n.Tokens)
		nodes = append(nodes, n)
	}
	repl, err := tokenring.ParseReplication(map[string]string{"class": "NetworkTopologyStrategy", "dc1": "1", "dc2": "1"})
	if err != nil {
		t.Fatal(err)
	}
	first := replicaView{newRingTable(10, func(int) int { return 1 }), "10.0.1.1", new([]routedRead)}
	tests := []struct {
		localDC, want, err string
	}{
		{"", "dc1", ""},
		{"dc2", "dc2", ""},
		{"dc3", "", `no replicas in DC "dc3"`},
	}
	for _, tt := range tests {
		routes, err := placeRoutes(first, nodes, repl, tt.localDC)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("local DC %q: %v, want %q", tt.localDC, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, hs := range routes.holders {
			for _, a := range hs {
				if dcOf[a] != tt.want {
					t.Errorf("local DC %q: range %d held by %s of %s", tt.localDC, i, a, dcOf[a])
				}
			}
		}
		if routes.nodes != 2 {
			t.Errorf("local DC %q: %d nodes, want 2", tt.localDC, routes.nodes)
		}
	}
}
