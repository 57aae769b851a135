package exporter

import (
	"fmt"
	"strings"

	"github.com/partmon/partmon/analyzer"
)

// Mode says which nodes a partmon speaks for.
type Mode string

const (
	// ModeCluster: one partmon publishes every node's series.
	ModeCluster Mode = "cluster"
	// ModeSidecar: each partmon publishes only its own node's node-scoped
	// series, so N sidecars together publish each of them exactly once.
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

// audience decides which node-scoped facts of a report this partmon publishes
// (metrics and alerts alike) and which cluster name labels them.
type audience struct {
	cluster  string
	sidecar  bool
	speakFor map[string]bool // node addresses; empty in sidecar mode = the report's Targeted nodes
}

func newAudience(cluster string, mode Mode, speakFor []string) audience {
	s := audience{cluster: cluster, sidecar: mode == ModeSidecar}
	if len(speakFor) > 0 {
		s.speakFor = make(map[string]bool, len(speakFor))
		for _, a := range speakFor {
			s.speakFor[a] = true
		}
	}
	return s
}

// clusterName is the cluster label: the configured override, else the report's.
func (s audience) clusterName(r *analyzer.Report) string {
	if s.cluster != "" {
		return s.cluster
	}
	return r.Cluster
}

// nodeFilter returns the predicate for node addresses of report r.
// Cluster mode speaks for every node unless a set is configured; sidecar mode
// speaks for the configured set, else for the nodes the collector targeted.
func (s audience) nodeFilter(r *analyzer.Report) func(node string) bool {
	if s.speakFor != nil {
		return func(node string) bool { return s.speakFor[node] }
	}
	if !s.sidecar {
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

// speaksForFinding: node-scoped findings follow the node filter; findings
// without a node (table- or cluster-wide) are published by every partmon.
func speaksForFinding(f analyzer.Finding, speaks func(string) bool) bool {
	return f.Node == "" || speaks(f.Node)
}
