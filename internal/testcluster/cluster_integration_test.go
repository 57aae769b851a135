//go:build integration

package testcluster

import (
	"context"
	"net"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"
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
// cluster: every planted problem names existing keyspaces and cluster nodes.
func TestTruthNamesRealReplicas(t *testing.T) {
	truth, err := LoadTruth()
	if err != nil {
		t.Skipf("no fixture truth (run deploy/local/fixtures load): %v", err)
	}
	s := Session(t, Hosts()[0])
	for _, p := range truth.Problems {
		t.Run(p.Kind+"/"+p.Keyspace, func(t *testing.T) {
			var name string
			if err := s.Query("SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?", p.Keyspace).Scan(&name); err != nil {
				t.Errorf("keyspace %s of a planted problem: %v", p.Keyspace, err)
			}
			if len(p.Nodes) == 0 {
				t.Errorf("problem names no node")
			}
			for _, n := range p.Nodes {
				if NodeIndex(n) == 0 {
					t.Errorf("node %s is not one of %v", n, Hosts())
				}
			}
		})
	}
}
