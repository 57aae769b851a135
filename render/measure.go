package render

import (
	"fmt"

	"github.com/partmon/partmon/analyzer/finding"
)

// MeasureCommand is the `partmon advise` command that measures a finding's
// suggested key on the table's own rows before anyone migrates to it; ""
// when the finding suggests no key. The key holds column names only.
func MeasureCommand(f finding.Finding) string {
	if f.SuggestedKey == "" || f.Keyspace == "" || f.Table == "" {
		return ""
	}
	return fmt.Sprintf(`partmon advise --hosts HOST --table %s.%s --key "%s"`, f.Keyspace, f.Table, f.SuggestedKey)
}
