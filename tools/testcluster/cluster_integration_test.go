//go:build integration

package testcluster

import (
	"context"
	"fmt"
	"maps"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"
)

// ringTokens parses the real `nodetool ring`: node lines start with an
// address and end with one of its tokens.
func ringTokens(out string) map[string][]string {
	tokens := map[string][]string{}
	for _, line := range strings.Split(out, "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || net.ParseIP(fields[0]) == nil {
			continue
		}
		tokens[fields[0]] = append(tokens[fields[0]], fields[len(fields)-1])
	}
	for _, t := range tokens {
		sort.Strings(t)
	}
	return tokens
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	sort.Strings(s)
	return s
}

// TestClusterTopologyMatchesNodetool checks that every node answers CQL, that
// system.local and system.peers_v2 describe the same ring from every node,
// and that its tokens are the ones the real nodetool ring prints.
func TestClusterTopologyMatchesNodetool(t *testing.T) {
	hosts := Hosts()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ringOut, err := Nodetool(ctx, 1, "ring")
	if err != nil {
		t.Fatalf("nodetool ring: %v", err)
	}
	ring := ringTokens(ringOut)
	if len(ring) != len(hosts) {
		t.Fatalf("nodetool ring shows %d nodes %v, want %d (%v)", len(ring), ring, len(hosts), hosts)
	}

	hostIDs := map[string]string{} // host -> host_id as the node itself reports it
	for _, host := range hosts {
		t.Run(host, func(t *testing.T) {
			s := Session(t, host)
			var (
				hostID, release string
				rpc             net.IP
				tokens          []string
			)
			if err := s.Query("SELECT host_id, rpc_address, release_version, tokens FROM system.local WHERE key = 'local'").
				Scan(&hostID, &rpc, &release, &tokens); err != nil {
				t.Fatalf("reading system.local on %s: %v", host, err)
			}
			if rpc.String() != host {
				t.Errorf("system.local on %s says rpc_address %s: the session is not pinned", host, rpc)
			}
			if env, err := Env(); err == nil && release != env["VERSION"] {
				t.Errorf("release_version %q, cluster.env says %q", release, env["VERSION"])
			}
			if got, want := sorted(tokens), ring[host]; !slices.Equal(got, want) {
				t.Errorf("system.local tokens %v, nodetool ring %v", got, want)
			}
			hostIDs[host] = hostID

			iter := s.Query("SELECT peer, host_id, tokens FROM system.peers_v2").Iter()
			var (
				peer     net.IP
				peerID   string
				peerToks []string
				peers    []string
			)
			for iter.Scan(&peer, &peerID, &peerToks) {
				peers = append(peers, peer.String())
				if got, want := sorted(peerToks), ring[peer.String()]; !slices.Equal(got, want) {
					t.Errorf("peers_v2 on %s: tokens of %s %v, nodetool ring %v", host, peer, got, want)
				}
			}
			if err := iter.Close(); err != nil {
				t.Fatalf("reading system.peers_v2 on %s: %v", host, err)
			}
			want := slices.DeleteFunc(slices.Clone(hosts), func(h string) bool { return h == host })
			if got := sorted(peers); !slices.Equal(got, sorted(want)) {
				t.Errorf("peers_v2 on %s: %v, want %v", host, got, want)
			}
		})
	}
	distinct := map[string]bool{}
	for _, id := range hostIDs {
		distinct[id] = true
	}
	if len(distinct) != len(hosts) {
		t.Errorf("host_ids %v: %d distinct, want %d", hostIDs, len(distinct), len(hosts))
	}
}

// TestTruthNamesRealReplicas checks the fixture truth against the live
// cluster: every planted problem names an existing keyspace and table, and
// its nodes are the replicas the real nodetool gives: `nodetool getendpoints`
// of its key; for a hot token range, of the table's hot key; for a
// low-cardinality table, of every one of its few partition keys; for
// ownership skew, the nodes `nodetool status <keyspace>` shows above 1.2x
// their datacenter's fair share. The truth file must exist: the fixtures are
// loaded before the integration tests run.
func TestTruthNamesRealReplicas(t *testing.T) {
	truth, err := LoadTruth()
	if err != nil {
		t.Fatalf("no fixture truth (deploy/local/fixtures load writes it): %v", err)
	}
	if len(truth.Problems) == 0 {
		t.Fatalf("%s plants no problem", TruthFile())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := Session(t, Hosts()[0])
	for _, p := range truth.Problems {
		t.Run(p.Kind+"/"+p.Keyspace+"."+p.Table, func(t *testing.T) {
			var name string
			if err := s.Query("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?", p.Keyspace).WithContext(ctx).Scan(&name); err != nil {
				t.Fatalf("keyspace %s of a planted problem: %v", p.Keyspace, err)
			}
			if p.Table != "" {
				if err := s.Query("SELECT table_name FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?", p.Keyspace, p.Table).
					WithContext(ctx).Scan(&name); err != nil {
					t.Fatalf("table %s.%s of a planted problem: %v", p.Keyspace, p.Table, err)
				}
			}
			for _, n := range p.Nodes {
				if NodeIndex(n) == 0 {
					t.Errorf("node %s is not one of %v", n, Hosts())
				}
			}
			want, how, err := realReplicas(ctx, s, truth, p)
			if err != nil {
				t.Fatal(err)
			}
			if len(want) == 0 {
				t.Fatalf("%s gives no node", how)
			}
			if got := sorted(p.Nodes); !slices.Equal(got, want) {
				t.Errorf("truth names nodes %v, %s gives %v", got, how, want)
			}
		})
	}
}

// realReplicas is what the real nodetool says the nodes of p are, sorted,
// and how it was asked.
func realReplicas(ctx context.Context, s *gocql.Session, truth *Truth, p Problem) ([]string, string, error) {
	switch {
	case p.Key != "":
		nodes, err := getEndpoints(ctx, p.Keyspace, p.Table, p.Key)
		return nodes, fmt.Sprintf("nodetool getendpoints %s %s %s", p.Keyspace, p.Table, p.Key), err
	case p.Kind == "hot_token_range":
		for _, hot := range truth.Find("hot_partition") {
			if hot.Keyspace == p.Keyspace && hot.Table == p.Table && hot.Key != "" {
				nodes, err := getEndpoints(ctx, p.Keyspace, p.Table, hot.Key)
				return nodes, fmt.Sprintf("nodetool getendpoints of the hot key %q", hot.Key), err
			}
		}
		return nil, "", fmt.Errorf("truth has no hot_partition key in %s.%s to find the hot range's replicas by", p.Keyspace, p.Table)
	case p.Kind == "low_cardinality_key":
		return lowCardinalityReplicas(ctx, s, p)
	case p.Kind == "ownership_skew":
		out, err := Nodetool(ctx, 1, "status", p.Keyspace)
		if err != nil {
			return nil, "", err
		}
		nodes, err := skewedNodes(out, 1.2)
		return nodes, "nodetool status " + p.Keyspace + " (effective ownership above 1.2x the fair share)", err
	}
	return nil, "", fmt.Errorf("no way to check the nodes of a %s problem without a key: add one to this test", p.Kind)
}

// endpointCache holds getendpoints answers: a JVM start each, and several
// problems share a key.
var endpointCache sync.Map

func getEndpoints(ctx context.Context, keyspace, table, key string) ([]string, error) {
	id := keyspace + "\x00" + table + "\x00" + key
	if nodes, ok := endpointCache.Load(id); ok {
		return nodes.([]string), nil
	}
	out, err := Nodetool(ctx, 1, "getendpoints", keyspace, table, key)
	if err != nil {
		return nil, err
	}
	nodes, err := parseEndpoints(out)
	if err != nil {
		return nil, fmt.Errorf("nodetool getendpoints %s %s %s: %w", keyspace, table, key, err)
	}
	endpointCache.Store(id, nodes)
	return nodes, nil
}

// lowCardinalityReplicas is the union of the replicas of every partition key
// of the table: by definition there are few (the fixture has 3).
func lowCardinalityReplicas(ctx context.Context, s *gocql.Session, p Problem) ([]string, string, error) {
	var cols []string
	iter := s.Query("SELECT column_name, kind FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?", p.Keyspace, p.Table).
		WithContext(ctx).Iter()
	var col, kind string
	for iter.Scan(&col, &kind) {
		if kind == "partition_key" {
			cols = append(cols, col)
		}
	}
	if err := iter.Close(); err != nil {
		return nil, "", err
	}
	if len(cols) != 1 {
		return nil, "", fmt.Errorf("%s.%s has partition key %v; this test reads single-column keys", p.Keyspace, p.Table, cols)
	}
	keys := s.Query(fmt.Sprintf("SELECT DISTINCT %s FROM %s.%s LIMIT 1000", cols[0], p.Keyspace, p.Table)).WithContext(ctx).Iter()
	union := map[string]bool{}
	var key string
	n := 0
	for keys.Scan(&key) {
		n++
		nodes, err := getEndpoints(ctx, p.Keyspace, p.Table, key)
		if err != nil {
			keys.Close()
			return nil, "", err
		}
		for _, node := range nodes {
			union[node] = true
		}
	}
	if err := keys.Close(); err != nil {
		return nil, "", err
	}
	return sorted(slices.Collect(maps.Keys(union))), fmt.Sprintf("nodetool getendpoints of its %d partition keys", n), nil
}
