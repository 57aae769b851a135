package main

import (
	"testing"
)

// Output of the real `nodetool status pm_hot` (Cassandra 5.0.8) on a cluster
// started with --tokens=-9223372036854775808,-7378697629483820647,0
// --topology dc1:r1,dc1:r2,dc2:r1; pm_hot has RF 1 in dc1 only.
const statusTwoDCs = `Datacenter: dc1
===============
Status=Up/Down
|/ State=Normal/Leaving/Joining/Moving
--  Address    Load        Tokens  Owns (effective)  Host ID                               Rack
UN  127.0.0.5  11.28 MiB  1       10.0%             0e3b3e2f-23de-4401-a3a9-b89347084440  r2  
UN  127.0.0.4  11.44 MiB  1       90.0%             d6f6ce74-4011-4671-b398-2713a40576e8  r1  

Datacenter: dc2
===============
Status=Up/Down
|/ State=Normal/Leaving/Joining/Moving
--  Address    Load        Tokens  Owns (effective)  Host ID                               Rack
UN  127.0.0.6  11.21 MiB  1       0.0%              cc0f6169-3a10-46ec-b11e-e995a953dfbd  r1  
`

// Without a keyspace nodetool prints "?" for ownership: nothing to parse.
const statusNoKeyspace = `Datacenter: dc1
===============
--  Address    Load        Tokens  Owns  Host ID                               Rack
UN  127.0.0.1  90.87 KiB   1       ?     ea6718a1-21bc-4dbc-bcec-b4711d81dd6e  r1
`

func TestParseOwnership(t *testing.T) {
	tests := []struct {
		name    string
		out     string
		want    []ownership
		wantErr bool
	}{
		{name: "two DCs", out: statusTwoDCs, want: []ownership{
			{Node: "127.0.0.5", DC: "dc1", Owns: 0.10},
			{Node: "127.0.0.4", DC: "dc1", Owns: 0.90},
			{Node: "127.0.0.6", DC: "dc2", Owns: 0},
		}},
		{name: "no effective ownership", out: statusNoKeyspace, wantErr: true},
		{name: "empty", out: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseOwnership(tt.out)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("row %d: got %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}

func TestReplicationFor(t *testing.T) {
	tests := []struct {
		name      string
		dcs       string
		rf        int
		firstOnly bool
		want      string
		wantErr   bool
	}{
		{name: "one DC of three", dcs: "dc1,dc1,dc1", rf: 3, want: "{'class': 'NetworkTopologyStrategy', 'dc1': 3}"},
		{name: "RF capped by nodes", dcs: "dc1,dc1,dc2", rf: 3, want: "{'class': 'NetworkTopologyStrategy', 'dc1': 2, 'dc2': 1}"},
		{name: "first DC only", dcs: "dc2,dc1,dc1", rf: 1, firstOnly: true, want: "{'class': 'NetworkTopologyStrategy', 'dc2': 1}"},
		{name: "no DC", dcs: "", rf: 3, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := replicationFor(tt.dcs, tt.rf, tt.firstOnly)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}
