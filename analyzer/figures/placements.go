package figures

import (
	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/ring"
)

// maxPlacementRanges bounds the rings whose replica sets a report carries:
// beyond it a picture of every range is unreadable and costly to build.
const maxPlacementRanges = 4096

// Placement is where one replication puts its replicas; keyspaces with the
// same replication map share it.
type Placement struct {
	Keyspaces   []string
	Replication string // "NetworkTopologyStrategy dc1:3"
	Ranges      []ring.TokenRange
	DCs         []ring.DCReplicas
}

// Placements are the replica sets of the keyspaces' distinct replications,
// by keyspace name; none for rings over maxPlacementRanges.
func Placements(ix *index.Index) []Placement {
	o := ix.Ownership()
	if o.RingLen == 0 || len(o.Keyspaces) == 0 {
		return nil
	}
	tokens := o.Ring // built once, for ownership
	if tokens == nil || tokens.Len() > maxPlacementRanges {
		return nil
	}
	bySig := map[string]int{}
	var out []Placement
	for _, ks := range o.Keyspaces {
		if ks.Owns == nil {
			continue // replication not understood or not placeable
		}
		sig := index.ReplicationSignature(ks.Keyspace.Replication)
		if i, ok := bySig[sig]; ok {
			out[i].Keyspaces = append(out[i].Keyspaces, ks.Keyspace.Name)
			continue
		}
		ranges, dcs, err := tokens.ReplicaSets(ks.Repl)
		if err != nil {
			continue
		}
		bySig[sig] = len(out)
		out = append(out, Placement{Keyspaces: []string{ks.Keyspace.Name}, Replication: ks.Repl.String(),
			Ranges: ranges, DCs: dcs})
	}
	return out
}
