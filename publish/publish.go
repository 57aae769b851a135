// Package publish decides what one partmon publishes of a report, for its
// metrics and its pushed alerts alike: which nodes it speaks for (cluster or
// sidecar mode), which cluster name labels them, and whether a report may
// replace the last good one.
package publish

import (
	"fmt"
	"strings"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

// Mode says which nodes a partmon speaks for.
type Mode string

const (
	// ModeCluster: one partmon publishes every node's series.
	ModeCluster Mode = "cluster"
	// ModeSidecar: each partmon publishes only its own node's series, so N
	// sidecars together publish each of them exactly once.
	ModeSidecar Mode = "sidecar"
)

// ParseMode checks a mode name from a flag or config file.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case ModeCluster, ModeSidecar:
		return m, nil
	}
	return "", fmt.Errorf("unknown mode %q (want cluster or sidecar)", s)
}

// Audience decides which node-scoped facts of a report this partmon
// publishes and which cluster name labels them.
type Audience struct {
	cluster  string
	sidecar  bool
	speakFor map[string]bool // node addresses; nil in sidecar mode = the report's Targeted nodes
	dcs      map[string]bool // cluster mode sharded by DC: the DCs spoken for; nil = every DC
}

// NewAudience: cluster overrides the report's cluster name when set;
// speakFor lists node addresses (empty: every node in cluster mode, the
// collector's targeted nodes in sidecar mode).
func NewAudience(cluster string, mode Mode, speakFor []string) Audience {
	a := Audience{cluster: cluster, sidecar: mode == ModeSidecar}
	if len(speakFor) > 0 {
		a.speakFor = make(map[string]bool, len(speakFor))
		for _, n := range speakFor {
			a.speakFor[n] = true
		}
	}
	return a
}

// ForDatacenters narrows a cluster-mode audience to the nodes of dcs (none:
// every DC), as collector.datacenters narrows the nodes read.
func (a Audience) ForDatacenters(dcs []string) Audience {
	if len(dcs) == 0 || a.sidecar {
		return a
	}
	a.dcs = make(map[string]bool, len(dcs))
	for _, dc := range dcs {
		a.dcs[dc] = true
	}
	return a
}

// Sidecar is true in sidecar mode.
func (a Audience) Sidecar() bool { return a.sidecar }

// Shared is true when other partmons speak for the rest of the cluster (a
// sidecar, or cluster mode for some DCs only), so they judge and publish the
// same table-wide problems from their own nodes.
func (a Audience) Shared() bool { return a.sidecar || a.dcs != nil }

// ClusterName is the cluster label: the configured override, else the report's.
func (a Audience) ClusterName(r *analyzer.Report) string {
	if a.cluster != "" {
		return a.cluster
	}
	return r.Cluster
}

// NodeFilter returns the predicate for node addresses of report r.
// Cluster mode speaks for every node unless a set or DCs are configured; sidecar mode
// speaks for the configured set, else for the nodes the collector targeted.
func (a Audience) NodeFilter(r *analyzer.Report) func(node string) bool {
	if a.speakFor != nil {
		return func(node string) bool { return a.speakFor[node] }
	}
	if a.dcs != nil {
		inDCs := make(map[string]bool)
		for _, n := range r.Nodes {
			if a.dcs[n.DC] {
				inDCs[n.Address] = true
			}
		}
		return func(node string) bool { return inDCs[node] }
	}
	if !a.sidecar {
		return func(string) bool { return true }
	}
	targeted := make(map[string]bool)
	for _, n := range r.Nodes {
		if n.Targeted {
			targeted[n.Address] = true
		}
	}
	return func(node string) bool { return targeted[node] }
}

// OwnNode is, in sidecar mode, the node this sidecar speaks for: the first
// of report r's nodes it speaks for. A sidecar reads node-local sources of
// its own node only, so its table-wide figures are that node's figures and
// carry its labels. False in cluster mode, or when it speaks for no node.
func (a Audience) OwnNode(r *analyzer.Report) (analyzer.NodeSummary, bool) {
	if !a.sidecar {
		return analyzer.NodeSummary{}, false
	}
	speaks := a.NodeFilter(r)
	for _, n := range r.Nodes {
		if speaks(n.Address) {
			return n, true
		}
	}
	return analyzer.NodeSummary{}, false
}

// SpeaksForFinding: node-scoped findings follow the node filter (a finding
// folded over several nodes is spoken for by a partmon that speaks for one
// of them); findings without a node (table- or cluster-wide) are published
// by every partmon.
func SpeaksForFinding(f finding.Finding, speaks func(string) bool) bool {
	if len(f.Nodes) > 0 {
		for _, n := range f.Nodes {
			if speaks(n.Node) {
				return true
			}
		}
		return false
	}
	return f.Node == "" || speaks(f.Node)
}

// Failed: a cycle in which no source could be read carries no data worth
// replacing the previous report with (nor proof that a problem went away).
func Failed(r *analyzer.Report) bool {
	if len(r.Sources) == 0 {
		return false
	}
	for _, s := range r.Sources {
		if s.State == model.StateOK {
			return false
		}
	}
	return true
}
