package main

import (
	"time"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// Growth is a planted, synthetic growth of one table's largest partition
// on one sidecar. A capture is one snapshot and has no history, so without
// it no forecast series exists; it is the one figure of the fleet that no
// database measured (docs/scale.md says so).
type Growth struct {
	From, To int64         // largest partition, bytes, at the start and now
	Span     time.Duration // from the first point to now
	Points   int           // points in the history, now included
}

// DefaultGrowth grows 5 MiB to 6.25 MiB over 4 hours: past the analyzer's
// significance floor (1 MiB and 20 % over the window), and at 0.31 MiB an
// hour about 12.5 days from the 100-MiB critical size, past the 7-day
// warning horizon: forecast series, no finding, no alert.
var DefaultGrowth = Growth{From: 5 << 20, To: 6<<20 + 256<<10, Span: 4 * time.Hour, Points: 9}

// Plant sets the table's largest partition on the sidecar's own node to
// g.To and returns the history that leads to it, points evenly spaced.
func (g Growth) Plant(s *model.Snapshot, own FleetNode, keyspace, table string) *history.History {
	h := history.New(history.Limits{})
	d := s.PerNode[own.HostID]
	key := model.TableKey(keyspace, table)
	if d == nil || d.Tables[key] == nil || g.Points < 2 {
		return h
	}
	st := *d.Tables[key]
	st.MaxPartitionBytes = g.To
	d.Tables[key] = &st
	now := s.Taken.Unix()
	span := int64(g.Span / time.Second)
	steps := int64(g.Points - 1)
	var pts []history.SizePoint
	for k := int64(0); k < steps; k++ { // the last point is the snapshot itself
		pts = append(pts, history.SizePoint{now - span + k*span/steps, g.From + k*(g.To-g.From)/steps})
	}
	h.Sizes[key] = pts
	return h
}
