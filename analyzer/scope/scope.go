// Package scope says which of a snapshot's data the analysis judges and
// remembers: the keyspaces the database owns (never judged) and, per node,
// how fresh its node-local data is. It is read once a cycle, by Analyze,
// and shared by the history and the index.
package scope

import (
	"strings"
	"time"

	"github.com/partmon/partmon/model"
)

// Scope is what the analysis needs to know of a snapshot before reading
// its figures.
type Scope struct {
	// System names the keyspaces the database owns; never judged.
	System map[string]bool
	// Fresh is the source statuses of each node, by address.
	Fresh map[string]*Freshness
	// StaleTraffic are the host IDs whose traffic counters were not read
	// this cycle: their rates would describe an earlier read.
	StaleTraffic map[string]bool
}

// Of reads s's scope.
func Of(s *model.Snapshot) Scope {
	fr := freshness(s)
	stale := map[string]bool{}
	for _, n := range s.Nodes {
		if f := fr[n.Address]; f != nil && f.TrafficFailed {
			stale[n.HostID] = true
		}
	}
	return Scope{System: systemKeyspaces(s), Fresh: fr, StaleTraffic: stale}
}

// systemKeyspaces names the keyspaces the database owns: flagged in the
// schema, or named like them when the schema does not list them.
func systemKeyspaces(s *model.Snapshot) map[string]bool {
	out := map[string]bool{}
	listed := map[string]bool{}
	for _, ks := range s.Schema.Keyspaces {
		listed[ks.Name] = true
		if ks.System {
			out[ks.Name] = true
		}
	}
	for _, nd := range s.PerNode {
		if nd == nil {
			continue
		}
		for _, ts := range nd.Tables {
			if ts != nil && !listed[ts.Keyspace] && LooksSystem(ts.Keyspace) {
				out[ts.Keyspace] = true
			}
		}
	}
	return out
}

// LooksSystem says whether a keyspace is named like one the database owns.
func LooksSystem(keyspace string) bool {
	return strings.HasPrefix(keyspace, "system") || strings.HasPrefix(keyspace, "dse_") ||
		keyspace == "dse" || strings.HasPrefix(keyspace, "solr_admin")
}

// Freshness is what the source statuses say about one node's data.
type Freshness struct {
	Failed []string // node-local sources whose last attempt failed
	Never  []string // sources that never succeeded
	// Oldest LastSuccess of any source, and of the failing ones.
	Oldest, OldestFailed time.Time
	OldestSrc            string
	// NeverSince is the first attempt of the sources that never succeeded.
	NeverSince    time.Time
	TrafficFailed bool // a source of the traffic counters failed
}

// trafficSource tells the sources that read the operation counters
// (Cassandra's local_read_latency and local_write_latency).
func trafficSource(name string) bool { return strings.Contains(name, "latency") }

// freshness groups the node-local source statuses by address. Unsupported
// and disabled sources carry no data, so they cannot be stale. A source that
// succeeded last time is current as far as its own schedule goes (some run
// every 30 minutes), so only failures make data stale.
func freshness(s *model.Snapshot) map[string]*Freshness {
	out := map[string]*Freshness{}
	for _, st := range s.Sources {
		if st.Node == "" || st.State == model.StateUnsupported || st.State == model.StateDisabled || st.State == model.StateBusy {
			continue
		}
		f := out[st.Node]
		if f == nil {
			f = &Freshness{}
			out[st.Node] = f
		}
		failed := st.State == model.StateError
		if failed {
			f.Failed = append(f.Failed, st.Source)
			f.TrafficFailed = f.TrafficFailed || trafficSource(st.Source)
		}
		if st.LastSuccess.IsZero() {
			f.Never = append(f.Never, st.Source)
			first := st.FirstAttempt
			if first.IsZero() { // a snapshot from before FirstAttempt: its last attempt is all we know
				first = st.Taken
			}
			if !first.IsZero() && (f.NeverSince.IsZero() || first.Before(f.NeverSince)) {
				f.NeverSince = first
			}
			f.TrafficFailed = f.TrafficFailed || trafficSource(st.Source)
			continue
		}
		if f.Oldest.IsZero() || st.LastSuccess.Before(f.Oldest) {
			f.Oldest, f.OldestSrc = st.LastSuccess, st.Source
		}
		if failed && (f.OldestFailed.IsZero() || st.LastSuccess.Before(f.OldestFailed)) {
			f.OldestFailed = st.LastSuccess
		}
	}
	return out
}

// Age is how old the node's oldest data is at time now; 0 when unknown.
func (f *Freshness) Age(now time.Time) float64 {
	if f == nil || f.Oldest.IsZero() {
		return 0
	}
	return max(0, now.Sub(f.Oldest).Seconds())
}

// FailedAge is how old the data of the failing sources is; 0 when none
// failed or they never succeeded.
func (f *Freshness) FailedAge(now time.Time) float64 {
	if f == nil || f.OldestFailed.IsZero() {
		return 0
	}
	return max(0, now.Sub(f.OldestFailed).Seconds())
}

// NeverAge is how long the sources that never succeeded have been tried
// without data; 0 when there are none.
func (f *Freshness) NeverAge(now time.Time) float64 {
	if f == nil || f.NeverSince.IsZero() {
		return 0
	}
	return max(0, now.Sub(f.NeverSince).Seconds())
}

// IsStale: some node-local source could not be read (this cycle or ever).
func (f *Freshness) IsStale() bool {
	return f != nil && (len(f.Failed) > 0 || len(f.Never) > 0)
}
