package analyzer_test

import (
	"testing"

	"github.com/partmon/partmon/tools/snapfuzz"
)

// FuzzAnalyze builds snapshots of every shape (tools/snapfuzz) and
// analyzes the last with the others as its history. Analyze recovers from
// a panic in any rule or step, so a RuleFailure is what a panic looks like
// here: the target fails on one, and on a report whose findings carry
// figures no reader can use (snapfuzz.Check). The committed seeds include
// the materialized view that crashed partmon (sizes on every node, no
// schema row): it panicked in the wide_partition rule before the schema
// helpers took a nil table.
func FuzzAnalyze(f *testing.F) {
	f.Add(snapfuzz.ViewSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, _ := snapfuzz.Report(data)
		snapfuzz.Check(t, r)
	})
}
