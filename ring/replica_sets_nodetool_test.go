package ring

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// describeRingRange is one line of `nodetool describering <keyspace>`
// (Cassandra 4.0-5.0, StorageService.describeRing: TokenRange's toString).
var describeRingRange = regexp.MustCompile(`TokenRange\(start_token:(-?\d+), end_token:(-?\d+), endpoints:\[([^\]]*)\]`)

// parseDescribeRing maps every range "(start,end]" nodetool describering
// prints to its replicas' addresses, sorted.
func parseDescribeRing(out string) (map[string][]string, error) {
	ranges := map[string][]string{}
	for _, m := range describeRingRange.FindAllStringSubmatch(out, -1) {
		for _, tok := range m[1:3] {
			if _, err := strconv.ParseInt(tok, 10, 64); err != nil {
				return nil, fmt.Errorf("describering token %q: %w", tok, err)
			}
		}
		var eps []string
		for _, e := range strings.Split(m[3], ",") {
			if e = strings.TrimSpace(e); e != "" {
				eps = append(eps, e)
			}
		}
		slices.Sort(eps)
		ranges[m[1]+","+m[2]] = eps
	}
	if len(ranges) == 0 {
		return nil, fmt.Errorf("no TokenRange in nodetool describering's output:\n%s", out)
	}
	return ranges, nil
}

// compareReplicaSets holds ReplicaSets to nodetool describering: the same
// ranges, and every range's replicas (all DCs together) the same nodes.
// It returns how many ranges were compared.
func compareReplicaSets(t *testing.T, fx *ownershipFixture, ks ownershipFixtureKeyspace) int {
	t.Helper()
	want, err := parseDescribeRing(ks.DescribeRing)
	if err != nil {
		t.Fatalf("keyspace %s: %v", ks.Name, err)
	}
	r, err := ParseReplication(ks.Replication)
	if err != nil {
		t.Fatalf("keyspace %s: %v", ks.Name, err)
	}
	ranges, dcs, err := ReplicaSets(fx.Nodes, r)
	if err != nil {
		t.Fatalf("keyspace %s: %v", ks.Name, err)
	}
	if len(ranges) != len(want) {
		t.Errorf("keyspace %s: partmon places %d ranges, nodetool describering lists %d", ks.Name, len(ranges), len(want))
	}
	bad := 0
	for i, rg := range ranges {
		var got []string
		for _, dc := range dcs {
			for _, id := range dc.Holders[i] {
				got = append(got, fx.Endpoints[id])
			}
		}
		slices.Sort(got)
		key := fmt.Sprintf("%d,%d", rg.Start, rg.End)
		eps, ok := want[key]
		switch {
		case !ok:
			t.Errorf("keyspace %s: range (%s] is not in nodetool describering", ks.Name, key)
			bad++
		case !slices.Equal(got, eps):
			t.Errorf("keyspace %s: range (%s] has replicas %v by partmon, %v by nodetool describering", ks.Name, key, got, eps)
			bad++
		}
		if bad >= 5 {
			t.Fatalf("keyspace %s: giving up after 5 ranges that differ", ks.Name)
		}
	}
	return len(ranges)
}

func TestParseDescribeRing(t *testing.T) {
	// As 5.0.8 prints it (one range of a 3-node ring, SimpleStrategy RF 2).
	out := `Schema Version:3f9a4f31-08b1-3a4f-9d63-6c6a5b3c2a11
TokenRange: 
	TokenRange(start_token:-9064153585462245478, end_token:-8872617391563473706, endpoints:[127.0.0.3, 127.0.0.1], rpc_endpoints:[127.0.0.3, 127.0.0.1], endpoint_details:[EndpointDetails(host:127.0.0.3, datacenter:dc1, rack:r1), EndpointDetails(host:127.0.0.1, datacenter:dc1, rack:r1)])
`
	got, err := parseDescribeRing(out)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"127.0.0.1", "127.0.0.3"}; len(got) != 1 || !slices.Equal(got["-9064153585462245478,-8872617391563473706"], want) {
		t.Fatalf("got %v, want one range with %v", got, want)
	}
	if _, err := parseDescribeRing("nodetool: Keyspace does not exist"); err == nil {
		t.Fatal("want an error for output without ranges")
	}
}
