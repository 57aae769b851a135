package truth

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
)

// OwnershipTolerance is how far partmon's effective ownership of a node may
// be from nodetool status KEYSPACE's: 0.1 percentage point, the rounding of
// nodetool's one decimal. Both compute from the same ring and replication.
const OwnershipTolerance = 0.001

// skewWarning is partmon's default ownership_skew_warning (analyzer
// thresholds; the corpus runs every threshold at its default), and
// skewMargin the band around it where either answer is right: nodetool
// prints one decimal.
const (
	skewWarning = 1.2
	skewMargin  = 0.01
)

// Ownership is one row of partmon's report "ownership": a node's effective
// ownership (0..1) of a keyspace's data.
type Ownership struct {
	Keyspace string  `json:"keyspace"`
	Node     string  `json:"node"`
	DC       string  `json:"dc"`
	Owns     float64 `json:"owns"`
}

// OwnershipCheck holds partmon's ownership of one (node, keyspace) to
// nodetool status KEYSPACE, run on a keyspace of the same replication.
type OwnershipCheck struct {
	Keyspace string  `json:"keyspace"`
	Node     string  `json:"node"`
	Partmon  float64 `json:"partmon"`           // 0..1; -1 when partmon gave none
	Nodetool float64 `json:"nodetool"`          // 0..1; -1 when nodetool gave none
	From     string  `json:"nodetool_keyspace"` // the keyspace nodetool was asked for
	OK       bool    `json:"ok"`
	// Skew is nodetool's ownership ÷ the fair share of the node's placement
	// group (its DC under NetworkTopologyStrategy, the ring under
	// SimpleStrategy); Flagged says partmon gave ownership_skew at warning or
	// above on this node; SkewOK that it did where Skew is past the warning
	// level and did not where Skew is below it.
	Skew    float64 `json:"nodetool_skew"`
	Flagged bool    `json:"flagged"`
	SkewOK  bool    `json:"skew_ok"`
}

// DiffPP is the difference in percentage points.
func (c OwnershipCheck) DiffPP() float64 { return 100 * math.Abs(c.Partmon-c.Nodetool) }

// replicationKey is a canonical form of a replication map: nodetool's
// effective ownership depends on it alone.
func replicationKey(r map[string]string) string {
	var parts []string
	for k, v := range r {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}

// ownershipKeyspaces maps every scenario keyspace to the first scenario
// keyspace of the same replication: one nodetool status run per replication.
func ownershipKeyspaces(scs []*Scenario) map[string]string {
	first := map[string]string{}
	out := map[string]string{}
	for _, sc := range scs {
		k := replicationKey(sc.Replication)
		if first[k] == "" {
			first[k] = sc.Keyspace
		}
		out[sc.Keyspace] = first[k]
	}
	return out
}

// checkOwnership compares partmon's ownership of every node of every
// scenario keyspace with nodetool's; a node either side lacks fails.
func checkOwnership(scs []*Scenario, owns []Ownership, status map[string][]StatusNode, findings []Finding) []OwnershipCheck {
	var out []OwnershipCheck
	for _, sc := range scs {
		from := ownershipKeyspaces(scs)[sc.Keyspace]
		byNode := map[string]*OwnershipCheck{}
		var order []string
		get := func(n string) *OwnershipCheck {
			if byNode[n] == nil {
				byNode[n] = &OwnershipCheck{Keyspace: sc.Keyspace, Node: n, Partmon: -1, Nodetool: -1, From: from}
				order = append(order, n)
			}
			return byNode[n]
		}
		simple := strings.HasSuffix(sc.Replication["class"], "SimpleStrategy")
		for _, s := range status[from] {
			if s.Owns >= 0 {
				c := get(s.Address)
				c.Nodetool = s.Owns
				c.Skew = groupSkew(status[from], s, simple)
			}
		}
		for _, o := range owns {
			if o.Keyspace == sc.Keyspace {
				get(o.Node).Partmon = o.Owns
			}
		}
		sort.Strings(order)
		for _, n := range order {
			c := byNode[n]
			c.OK = c.Partmon >= 0 && c.Nodetool >= 0 && math.Abs(c.Partmon-c.Nodetool) <= OwnershipTolerance+1e-9
			c.Flagged = flagged(findings, sc.Keyspace, n)
			c.SkewOK = c.Nodetool >= 0 && (c.Skew < skewWarning+skewMargin || c.Flagged) && (c.Skew > skewWarning-skewMargin || !c.Flagged)
			out = append(out, *c)
		}
	}
	return out
}

// groupSkew is a node's ownership ÷ the mean of its placement group's.
func groupSkew(status []StatusNode, node StatusNode, simple bool) float64 {
	sum, n := 0.0, 0
	for _, s := range status {
		if s.Owns >= 0 && (simple || s.DC == node.DC) {
			sum += s.Owns
			n++
		}
	}
	if sum == 0 {
		return 0
	}
	return node.Owns / (sum / float64(n))
}

// flagged says whether partmon named node in an ownership_skew finding of
// keyspace at warning or above.
func flagged(findings []Finding, keyspace, node string) bool {
	for i := range findings {
		f := &findings[i]
		if f.Kind == "ownership_skew" && f.Keyspace == keyspace && rank(f.Severity) >= rank("warning") && slices.Contains(f.AllNodes(), node) {
			return true
		}
	}
	return false
}

// addOwnership counts one phase's ownership checks into the summary.
func (s *Summary) addOwnership(checks []OwnershipCheck) {
	for _, o := range checks {
		s.Ownership++
		if o.Partmon >= 0 && o.Nodetool >= 0 {
			s.OwnershipMaxPP = max(s.OwnershipMaxPP, o.DiffPP())
		}
		if o.OK {
			s.OwnershipOK++
		} else {
			s.OwnershipErrors = append(s.OwnershipErrors, o)
		}
		if !o.SkewOK {
			s.SkewErrors = append(s.SkewErrors, o)
		}
	}
}

// ownershipLine says how partmon's ownership compared, for the text table.
func ownershipLine(n, ok int, maxPP float64, skewOK int) string {
	return fmt.Sprintf("effective ownership per node and keyspace within %.1f pp of nodetool status: %d of %d (largest difference %.3f pp); "+
		"ownership_skew given or not as nodetool's ownership is past %.1f× its fair share or not: %d of %d",
		100*OwnershipTolerance, ok, n, maxPP, skewWarning, skewOK, n)
}
