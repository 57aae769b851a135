package collector

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
)

// Cluster mode reads the ring's nodes in collector.datacenters only (every
// node when it lists none); a list that matches no DC of the ring is an
// error that names the ring's DCs, not a silent partmon reading nothing.
func TestTargetsInDatacenters(t *testing.T) {
	ring := []model.Node{
		{Address: "10.0.0.1", DC: "dc1"}, {Address: "10.0.0.2", DC: "dc1"},
		{Address: "10.0.1.1", DC: "dc2"}, {Address: "10.0.2.1", DC: "dc3"},
	}
	tests := []struct {
		name    string
		dcs     []string
		want    string // target addresses, comma-separated
		wantErr string
	}{
		{"every DC", nil, "10.0.0.1,10.0.0.2,10.0.1.1,10.0.2.1", ""},
		{"one DC", []string{"dc1"}, "10.0.0.1,10.0.0.2", ""},
		{"two DCs", []string{"dc3", "dc2"}, "10.0.1.1,10.0.2.1", ""},
		{"no such DC", []string{"DC1"}, "", "no node of the ring is in collector.datacenters [DC1] (the ring's DCs: [dc1 dc2 dc3])"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestCollector(t, Config{Hosts: []string{"10.0.0.1"}, Mode: ModeCluster, Datacenters: tt.dcs})
			topo := newOutput("")
			topo.Cluster.Nodes = ring
			c.record("topology", "", "", topo, len(ring), nil, time.Now())
			got, err := c.targets(context.Background())
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var addrs []string
			for _, tg := range got {
				addrs = append(addrs, tg.conn.Address())
			}
			if strings.Join(addrs, ",") != tt.want {
				t.Errorf("targets %v, want %s", addrs, tt.want)
			}
		})
	}
}
