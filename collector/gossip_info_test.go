package collector

import (
	"errors"
	"reflect"
	"testing"

	"github.com/partmon/partmon/collector/internal/cql"
)

func TestGossipInfo(t *testing.T) {
	caps := cassandra50Caps()
	row := func(addr, hostID string, load any) cql.Row {
		return cql.Row{"address": addr, "host_id": hostID, "load": load}
	}
	t.Run("every node's load, own by host ID", func(t *testing.T) {
		f := newFake("10.0.0.1").on(gossipInfoQuery,
			row("10.0.0.1", "other", "5.0E7"),
			row("10.0.0.9", caps.HostID, "1.2345678E7"), // own node, gossiping under another address
			row("10.0.0.3", "h3", nil),                  // joined, no load gossiped yet
		)
		out, _, err := run(t, gossipInfoSource{}, f, caps)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]float64{"10.0.0.1": 5e7, "10.0.0.9": 12345678}; !reflect.DeepEqual(out.Node.GossipLoad, want) {
			t.Errorf("gossip load %v, want %v", out.Node.GossipLoad, want)
		}
		if out.Node.LoadBytes != 12345678 {
			t.Errorf("own load %g, want the host ID's entry", out.Node.LoadBytes)
		}
	})
	for _, tc := range []struct {
		name, load, want string
	}{
		{"garbage", "12 MiB", `load of 10.0.0.1: "12 MiB" is not a byte count`},
		{"negative", "-1.0", `load of 10.0.0.1: "-1.0" is not a byte count`},
		{"NaN", "NaN", `load of 10.0.0.1: "NaN" is not a byte count`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := run(t, gossipInfoSource{}, newFake("10.0.0.1").on(gossipInfoQuery, row("10.0.0.1", "h", tc.load)), caps)
			wantErr(t, err, "reading system_views.gossip_info on 10.0.0.1: row 1: "+tc.want)
		})
	}
	t.Run("4.0 has no gossip_info", func(t *testing.T) {
		_, _, err := run(t, gossipInfoSource{}, newFake("n1"), cassandra40Caps())
		if !errors.Is(err, ErrUnsupported) {
			t.Fatalf("want ErrUnsupported, got %v", err)
		}
		wantErr(t, err, "Cassandra 4.1+")
	})
}
