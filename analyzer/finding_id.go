package analyzer

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/partmon/partmon/analyzer/finding"
)

// findingID hashes what names a problem (its identity: see fold.go), never
// its values nor its attributes (which nodes see it, which key a key list
// names), so the same problem keeps its ID from one cycle to the next.
func findingID(f *finding.Finding) string {
	h := sha256.New()
	for _, part := range identity(f) {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}

// severityFor grades value against a warning and a critical level
// (both inclusive); higher is worse.
func severityFor(value, warning, critical float64) finding.Severity {
	switch {
	case value >= critical:
		return finding.SeverityCritical
	case value >= warning:
		return finding.SeverityWarning
	}
	return finding.SeverityNone
}

// thresholdFor is the level a severity was reached at.
func thresholdFor(sev finding.Severity, warning, critical float64) float64 {
	if sev == finding.SeverityCritical {
		return critical
	}
	return warning
}

// sortFindings orders the most severe first, then by identity, so reports
// and tests are deterministic.
func sortFindings(fs []finding.Finding) {
	sort.Slice(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j]
		return cmp.Or(
			cmp.Compare(b.Severity, a.Severity), // the most severe first
			cmp.Compare(a.Kind, b.Kind),
			cmp.Compare(a.Keyspace, b.Keyspace),
			cmp.Compare(a.Table, b.Table),
			cmp.Compare(a.DC, b.DC),
			cmp.Compare(a.Node, b.Node),
			cmp.Compare(a.PartitionKey, b.PartitionKey),
			cmp.Compare(a.ID, b.ID),
		) < 0
	})
}

// joinSources lists source names once each, in order.
func joinSources(names ...string) string {
	var out []string
	seen := map[string]bool{}
	for _, n := range names {
		for _, part := range strings.Split(n, ",") {
			if part != "" && !seen[part] {
				seen[part] = true
				out = append(out, part)
			}
		}
	}
	return strings.Join(out, ",")
}
