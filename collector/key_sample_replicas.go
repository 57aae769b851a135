package collector

import (
	"context"
	"fmt"
	"sort"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
	tokenring "github.com/partmon/partmon/ring"
	"go.uber.org/zap"
)

// sampleRoutes sends each token range the sampler reads to a replica that
// holds it in the local DC, the least used so far, so the coordinator reads
// its own data (no hop) and the sample's load is spread over the replicas
// rather than all on the first host. A range read past its vnode's end is
// still answered whole: its coordinator fetches the rest from the next
// range's replica, as for any range read.
type sampleRoutes struct {
	ends    []int64    // ring.TokenRange.End of each range, ascending
	holders [][]string // the local DC's replicas of each range, addresses in placement order
	first   cql.Querier
	open    func(ctx context.Context, addr string) (cql.Querier, error)
	conns   map[string]cql.Querier
	failed  map[string]error
	used    map[string]int // ranges sent to each address
	nodes   int            // nodes of the DC read
	log     *zap.Logger
}

// pick is the querier for a range read starting after tok.
func (r *sampleRoutes) pick(ctx context.Context, tok int64) cql.Querier {
	if r == nil || len(r.ends) == 0 {
		return r.firstOr(nil)
	}
	// Range i is (End[i-1], End[i]]; the first wraps from the last token.
	i := sort.Search(len(r.ends), func(i int) bool { return r.ends[i] > tok })
	if i == len(r.ends) {
		i = 0
	}
	cands := append([]string(nil), r.holders[i]...)
	sort.SliceStable(cands, func(a, b int) bool { return r.used[cands[a]] < r.used[cands[b]] })
	for _, addr := range cands {
		if r.failed[addr] != nil {
			continue
		}
		q, ok := r.conns[addr]
		if !ok {
			var err error
			if q, err = r.open(ctx, addr); err != nil {
				r.failed[addr] = err
				r.log.Info("key sample: a replica cannot be reached, its ranges go to another", zap.String("node", addr), zap.Error(err))
				continue
			}
			r.conns[addr] = q
		}
		r.used[addr]++
		return q
	}
	return r.firstOr(r.used)
}

func (r *sampleRoutes) firstOr(used map[string]int) cql.Querier {
	if used != nil {
		used[r.first.Address()]++
	}
	return r.first
}

// newSampleRoutes reads the ring and keyspace's replication on q (the
// first host) and places every range's replicas in dc ("" the first host's
// DC). An error means the sample stays on the first host, as a
// LocalStrategy keyspace or an unreadable ring must.
func newSampleRoutes(ctx context.Context, q cql.Querier, keyspace, dc string) (*sampleRoutes, error) {
	nodes, err := sampleRing(ctx, q)
	if err != nil {
		return nil, err
	}
	var m map[string]string
	if _, err := cql.SelectAll(ctx, q, "SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?", []any{keyspace},
		func(d *cql.Decoder) error {
			m = d.OptStringMap("replication")
			return d.Err()
		}); err != nil {
		return nil, fmt.Errorf("reading keyspace %s's replication: %w", keyspace, err)
	}
	repl, err := tokenring.ParseReplication(m)
	if err != nil {
		return nil, err
	}
	return placeRoutes(q, nodes, repl, dc)
}

// placeRoutes places every range's replicas in dc ("" first's DC) under
// repl; first is the first host's querier.
func placeRoutes(first cql.Querier, nodes []model.Node, repl tokenring.Replication, dc string) (*sampleRoutes, error) {
	ranges, dcs, err := tokenring.ReplicaSets(nodes, repl)
	if err != nil {
		return nil, err
	}
	addr := map[string]string{}
	for _, n := range nodes {
		addr[n.HostID] = n.Address
		if dc == "" && n.Address == first.Address() {
			dc = n.DC
		}
	}
	r := &sampleRoutes{first: first, conns: map[string]cql.Querier{first.Address(): first}, failed: map[string]error{}, used: map[string]int{}, log: zap.NewNop()}
	for _, n := range nodes {
		if n.DC == dc {
			r.nodes++
		}
	}
	for _, d := range dcs {
		if d.DC != "" && d.DC != dc {
			continue
		}
		for i, tr := range ranges {
			var hs []string
			for _, id := range d.Holders[i] {
				if a := addr[id]; a != "" {
					hs = append(hs, a)
				}
			}
			if len(hs) == 0 {
				return nil, fmt.Errorf("range (%d, %d] has no replica in DC %q", tr.Start, tr.End, dc)
			}
			r.ends, r.holders = append(r.ends, tr.End), append(r.holders, hs)
		}
		return r, nil
	}
	return nil, fmt.Errorf("no replicas in DC %q", dc)
}

// sampleRing is the ring as the first host sees it: system.local and
// system.peers_v2 (else system.peers).
func sampleRing(ctx context.Context, q cql.Querier) ([]model.Node, error) {
	var nodes []model.Node
	if _, err := cql.SelectAll(ctx, q, localQuery, nil, func(row *cql.Decoder) error {
		n, err := parseNode(row, "rpc_address", "broadcast_address", q.Address())
		nodes = append(nodes, n)
		return err
	}); err != nil {
		return nil, fmt.Errorf("reading system.local: %w", err)
	}
	if len(nodes) != 1 {
		return nil, fmt.Errorf("reading system.local: want 1 row, got %d", len(nodes))
	}
	peers := func(stmt, native string) error {
		_, err := cql.SelectAll(ctx, q, stmt, nil, func(row *cql.Decoder) error {
			if !validPeer(row) {
				return nil
			}
			n, err := parseNode(row, native, "peer", "")
			nodes = append(nodes, n)
			return err
		})
		return err
	}
	if err := peers(peersV2Query, "native_address"); err != nil {
		nodes = nodes[:1]
		if err := peers(peersQuery, "rpc_address"); err != nil {
			return nil, fmt.Errorf("reading system.peers: %w", err)
		}
	}
	return nodes, nil
}
