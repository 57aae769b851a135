package analyzer

import "github.com/partmon/partmon/ring"

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

// placements are the replica sets of the keyspaces' distinct replications,
// by keyspace name; none for rings over maxPlacementRanges.
func (a figures) placements() []Placement {
	if a.ringLen == 0 || len(a.keyspaces) == 0 {
		return nil
	}
	tokens := a.ring // built once, for ownership
	if tokens == nil || tokens.Len() > maxPlacementRanges {
		return nil
	}
	bySig := map[string]int{}
	var out []Placement
	for _, ks := range a.keyspaces {
		if ks.owns == nil {
			continue // replication not understood or not placeable
		}
		sig := replicationSignature(ks.ks.Replication)
		if i, ok := bySig[sig]; ok {
			out[i].Keyspaces = append(out[i].Keyspaces, ks.ks.Name)
			continue
		}
		ranges, dcs, err := tokens.ReplicaSets(ks.repl)
		if err != nil {
			continue
		}
		bySig[sig] = len(out)
		out = append(out, Placement{Keyspaces: []string{ks.ks.Name}, Replication: ks.repl.String(),
			Ranges: ranges, DCs: dcs})
	}
	return out
}
