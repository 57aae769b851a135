package testcluster

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// parseEndpoints reads `nodetool getendpoints`: one address per line, sorted.
func parseEndpoints(out string) ([]string, error) {
	var nodes []string
	for _, f := range strings.Fields(out) {
		if net.ParseIP(f) == nil {
			return nil, fmt.Errorf("%q is not an address:\n%s", f, out)
		}
		nodes = append(nodes, f)
	}
	sort.Strings(nodes)
	return nodes, nil
}

// skewedNodes reads the real `nodetool status <keyspace>`: the nodes whose
// effective ownership is above factor × their datacenter's fair share (the
// datacenter's total ownership, its replication factor, over its nodes).
func skewedNodes(status string, factor float64) ([]string, error) {
	owns := map[string]map[string]float64{} // dc → node → ownership
	dc := ""
	for _, line := range strings.Split(status, "\n") {
		if name, ok := strings.CutPrefix(line, "Datacenter: "); ok {
			dc = strings.TrimSpace(name)
			continue
		}
		fields := strings.Fields(line)
		if len(fields) < 3 || len(fields[0]) != 2 || net.ParseIP(fields[1]) == nil {
			continue
		}
		for _, f := range fields[2:] {
			if pct, ok := strings.CutSuffix(f, "%"); ok {
				v, err := strconv.ParseFloat(pct, 64)
				if err != nil {
					return nil, fmt.Errorf("ownership %q of %s in nodetool status: %w", f, fields[1], err)
				}
				if owns[dc] == nil {
					owns[dc] = map[string]float64{}
				}
				owns[dc][fields[1]] = v / 100
			}
		}
	}
	if len(owns) == 0 {
		return nil, fmt.Errorf("no effective ownership in nodetool status:\n%s", status)
	}
	var out []string
	for _, nodes := range owns {
		total := 0.0
		for _, o := range nodes {
			total += o
		}
		fair := total / float64(len(nodes))
		for node, o := range nodes {
			if o > factor*fair {
				out = append(out, node)
			}
		}
	}
	sort.Strings(out)
	return out, nil
}

// statusBalanced is the real `nodetool status pm_hot` of the fixture cluster
// (Cassandra 5.0.8); statusUnbalanced2DC is written in its format for a ring
// planted 50/10/40 % (the --tokens example of deploy/local/README.md), its
// third node in a second datacenter and down.
const (
	statusBalanced = `Datacenter: dc1
===============
Status=Up/Down
|/ State=Normal/Leaving/Joining/Moving
--  Address    Load        Tokens  Owns (effective)  Host ID                               Rack
UN  127.0.0.3  114.83 MiB  1       33.3%             59c17fdd-2560-4c1a-89d8-c9301d53363c  r3
UN  127.0.0.2  114.82 MiB  1       33.3%             bb4a0d2b-674f-4037-a669-1db41bb7ee61  r2
UN  127.0.0.1  114.82 MiB  1       33.3%             5303e963-ca4d-4275-a757-1f71fb435839  r1
`
	statusUnbalanced2DC = `Datacenter: dc1
===============
Status=Up/Down
|/ State=Normal/Leaving/Joining/Moving
--  Address     Load       Tokens  Owns (effective)  Host ID                               Rack
UN  127.0.0.10  1.2 MiB    1       50.0%             0d4a5c1e-1111-4c1a-89d8-c9301d53363c  r1
UN  127.0.0.11  1.1 MiB    1       10.0%             0d4a5c1e-2222-4c1a-89d8-c9301d53363c  r1
Datacenter: dc2
===============
--  Address     Load       Tokens  Owns (effective)  Host ID                               Rack
DN  127.0.0.12  ?          1       40.0%             0d4a5c1e-3333-4c1a-89d8-c9301d53363c  r1
`
)

func TestSkewedNodes(t *testing.T) {
	tests := []struct {
		name, status string
		factor       float64
		want         []string
		wantErr      bool
	}{
		{name: "balanced", status: statusBalanced, factor: 1.2, want: nil},
		{name: "one DC above 1.2x, a single-node DC never", status: statusUnbalanced2DC, factor: 1.2, want: []string{"127.0.0.10"}},
		{name: "a lower factor", status: statusBalanced, factor: 0.9, want: []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}},
		{name: "no ownership column", status: "Datacenter: dc1\nUN  127.0.0.1  1 MiB  1  ?  id  r1\n", factor: 1.2, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := skewedNodes(tc.status, tc.factor)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error: %v", err, tc.wantErr)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("skewedNodes = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestParseEndpoints(t *testing.T) {
	got, err := parseEndpoints("127.0.0.3\n127.0.0.1\n127.0.0.2\n")
	if err != nil || !slices.Equal(got, []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}) {
		t.Errorf("parseEndpoints = %v, %v", got, err)
	}
	if _, err := parseEndpoints("error: Unknown keyspace pm_nope\n"); err == nil {
		t.Error("parseEndpoints accepted an error message")
	}
}
