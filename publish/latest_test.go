package publish

import (
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/tools/reporttest"
)

// TestLatestKeepsTheLastGoodReport: a failed or nil cycle counts a
// generation and shows its sources, and the last good report stays; a hook
// sees the new state.
func TestLatestKeepsTheLastGoodReport(t *testing.T) {
	var l Latest
	if l.Ready() || l.Cycle().Generation != 0 {
		t.Fatalf("empty Latest: ready %v, %+v", l.Ready(), l.Cycle())
	}
	var seen []uint64
	l.OnPublish(func() { seen = append(seen, l.Cycle().Generation) })

	good, failed := reporttest.Cluster(), reporttest.Failed()
	steps := []struct {
		publish *analyzer.Report
		want    *analyzer.Report
		up      bool
	}{
		{failed, nil, false},
		{good, good, true},
		{failed, good, false},
		{nil, good, false},
	}
	for i, s := range steps {
		l.Publish(s.publish)
		c := l.Cycle()
		if c.Report != s.want || c.Up != s.up || c.Generation != uint64(i+1) {
			t.Errorf("step %d: report %p up %v generation %d, want %p %v %d", i, c.Report, c.Up, c.Generation, s.want, s.up, i+1)
		}
		if s.publish != nil && len(c.Sources) != len(s.publish.Sources) {
			t.Errorf("step %d: %d sources, want the attempt's %d", i, len(c.Sources), len(s.publish.Sources))
		}
	}
	if len(seen) != len(steps) || seen[len(seen)-1] != uint64(len(steps)) {
		t.Errorf("hook saw generations %v, want 1..%d", seen, len(steps))
	}
}
