package ring

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Short names of the replication strategies partmon understands.
const (
	StrategySimple          = "SimpleStrategy"
	StrategyNetworkTopology = "NetworkTopologyStrategy"
	StrategyLocal           = "LocalStrategy"
	StrategyEverywhere      = "EverywhereStrategy" // ScyllaDB: a replica on every node
)

const replicationFactorKey = "replication_factor"

// ReplicationFactor is one factor of a replication map: "3" or, with
// transient replication (Cassandra 4.0+), "3/1" = 3 replicas of which 1 is
// transient.
type ReplicationFactor struct {
	All       int
	Transient int
}

// Full is the number of full (non-transient) replicas.
func (f ReplicationFactor) Full() int { return f.All - f.Transient }

// String gives the factor back in system_schema form.
func (f ReplicationFactor) String() string {
	if f.Transient == 0 {
		return strconv.Itoa(f.All)
	}
	return strconv.Itoa(f.All) + "/" + strconv.Itoa(f.Transient)
}

// ParseReplicationFactor reads "3" or "3/1" with the checks of Cassandra's
// ReplicationFactor.fromString and validate: no negatives, transient < all.
func ParseReplicationFactor(s string) (ReplicationFactor, error) {
	allText, transientText, hasTransient := strings.Cut(s, "/")
	all, err := strconv.Atoi(allText)
	if err != nil {
		return ReplicationFactor{}, fmt.Errorf("replication factor %q: want <replicas> or <replicas>/<transient>", s)
	}
	f := ReplicationFactor{All: all}
	if hasTransient {
		if f.Transient, err = strconv.Atoi(transientText); err != nil {
			return ReplicationFactor{}, fmt.Errorf("replication factor %q: want <replicas> or <replicas>/<transient>", s)
		}
	}
	if f.All < 0 || f.Transient < 0 {
		return ReplicationFactor{}, fmt.Errorf("replication factor %q: must not be negative", s)
	}
	if f.Transient > 0 && f.Transient >= f.All {
		return ReplicationFactor{}, fmt.Errorf("replication factor %q: transient replicas must be fewer than all replicas", s)
	}
	return f, nil
}

// Replication is a keyspace's parsed replication map.
type Replication struct {
	// Class is the short strategy name (StrategySimple, ...), or the raw class
	// string for a strategy partmon does not know.
	Class string
	// Factor is SimpleStrategy's replication_factor.
	Factor ReplicationFactor
	// DCs are NetworkTopologyStrategy's per-datacenter factors.
	DCs map[string]ReplicationFactor
}

// ParseReplication reads a system_schema.keyspaces replication map. Both the
// full class names (org.apache.cassandra.locator.SimpleStrategy) and the short
// ones are accepted. An unknown class is not an error: Class keeps the raw
// name and EffectiveOwnership refuses it.
func ParseReplication(m map[string]string) (Replication, error) {
	rawClass, ok := m["class"]
	if !ok || strings.TrimSpace(rawClass) == "" {
		return Replication{}, fmt.Errorf("replication map has no class: %v", m)
	}
	r := Replication{Class: shortStrategyName(rawClass)}
	switch r.Class {
	case StrategySimple:
		text, ok := m[replicationFactorKey]
		if !ok {
			return Replication{}, fmt.Errorf("%s needs a %s option", StrategySimple, replicationFactorKey)
		}
		f, err := ParseReplicationFactor(text)
		if err != nil {
			return Replication{}, fmt.Errorf("%s: %w", StrategySimple, err)
		}
		r.Factor = f
	case StrategyNetworkTopology:
		r.DCs = make(map[string]ReplicationFactor, len(m)-1)
		for _, dc := range sortedReplicationKeys(m) {
			if dc == "class" {
				continue
			}
			// CREATE KEYSPACE expands replication_factor into one entry per
			// DC; the stored map never has it, and guessing the DCs it meant
			// would invent replicas.
			if dc == replicationFactorKey {
				return Replication{}, fmt.Errorf("%s: %s is not a stored option (expected one factor per datacenter)", StrategyNetworkTopology, replicationFactorKey)
			}
			f, err := ParseReplicationFactor(m[dc])
			if err != nil {
				return Replication{}, fmt.Errorf("%s datacenter %q: %w", StrategyNetworkTopology, dc, err)
			}
			r.DCs[dc] = f
		}
	}
	return r, nil
}

// FactorIn is the number of replicas (transient ones included, as Cassandra
// places them) the keyspace asks for in dc: SimpleStrategy's factor for any dc
// (it ignores datacenters), the DC's entry for NetworkTopologyStrategy, and 0
// for the others (EverywhereStrategy's count depends on the ring, not the map).
func (r Replication) FactorIn(dc string) int {
	switch r.Class {
	case StrategySimple:
		return r.Factor.All
	case StrategyNetworkTopology:
		return r.DCs[dc].All
	}
	return 0
}

// String writes a replication for people: "SimpleStrategy rf 3",
// "NetworkTopologyStrategy dc1:3 dc2:2" (datacenters sorted).
func (r Replication) String() string {
	switch r.Class {
	case StrategySimple:
		return r.Class + " rf " + r.Factor.String()
	case StrategyNetworkTopology:
		dcs := make([]string, 0, len(r.DCs))
		for dc, f := range r.DCs {
			dcs = append(dcs, dc+":"+f.String())
		}
		sort.Strings(dcs)
		return r.Class + " " + strings.Join(dcs, " ")
	}
	return r.Class
}

// shortStrategyName maps "org.apache.cassandra.locator.SimpleStrategy" and
// "simplestrategy" alike to the short name; unknown classes come back as given.
func shortStrategyName(class string) string {
	class = strings.TrimSpace(class)
	last := class[strings.LastIndexByte(class, '.')+1:]
	for _, known := range []string{StrategySimple, StrategyNetworkTopology, StrategyLocal, StrategyEverywhere} {
		if strings.EqualFold(last, known) {
			return known
		}
	}
	return class
}

func sortedReplicationKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
