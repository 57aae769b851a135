package statefile

import (
	"encoding/json"
	"fmt"

	"github.com/partmon/partmon/analyzer/history"
)

// fitted is a state document encoded within the bound, and what was left
// out to get it there.
type fitted struct {
	data    []byte
	dropped []string // in the order applied
}

// cut is one way to make the document smaller; what says it in a log line.
type cut struct {
	what string
	do   func(*stateDoc)
}

// cuts are applied in order until the document fits: first the series
// thinned (every other point, the newest kept, twice at most: a forecast
// reads a thinner series still), then the parts that matter least dropped:
// the heatmap's columns (a picture of the last hours), the key history
// (read again from the next snapshots), the logs' positions and evidence
// (the logs are read again), and the traffic counters (the rates wait one
// traffic window). The size history, the forecasts' ground, goes last.
var cuts = []cut{
	{"every series thinned to half its points", thinDoc},
	{"every series thinned to a quarter of its points", thinDoc},
	{"the heatmap's history dropped", func(d *stateDoc) { d.History.Heat = nil }},
	{"the key history dropped", func(d *stateDoc) { d.History.Keys = nil }},
	{"the logs' positions and evidence dropped", func(d *stateDoc) { d.Logs = nil }},
	{"the traffic counters dropped", func(d *stateDoc) { d.History.Traffic = nil }},
}

// fit encodes doc within limit bytes, cutting a copy of its history (the
// history in memory stays whole); an error when even the last cut leaves
// it over.
func fit(doc stateDoc, limit int) (fitted, error) {
	var f fitted
	data, err := json.Marshal(doc)
	if err != nil || len(data) <= limit {
		f.data = data
		return f, err
	}
	if doc.History != nil {
		h := *doc.History
		doc.History = &h
	} else {
		doc.History = &history.History{}
	}
	for _, c := range cuts {
		c.do(&doc)
		f.dropped = append(f.dropped, c.what)
		if data, err = json.Marshal(doc); err != nil {
			return f, err
		}
		if len(data) <= limit {
			f.data = data
			return f, nil
		}
	}
	return f, fmt.Errorf("the state is %d bytes after every cut, more than the %d a state file may hold: lower analysis.history's max_points or max_age", len(data), limit)
}

// thinDoc halves every series of the document's history, in new maps
// and slices.
func thinDoc(d *stateDoc) {
	h := d.History
	h.Sizes = thinMap(h.Sizes)
	h.Disks = thinMap(h.Disks)
	if h.Traffic != nil {
		traffic := make(map[string]map[string][]history.TrafficPoint, len(h.Traffic))
		for host, m := range h.Traffic {
			traffic[host] = thinMap(m)
		}
		h.Traffic = traffic
	}
	if h.Keys != nil {
		keys := &history.KeyHistory{Tables: make(map[string]map[string]*history.KeySeries, len(h.Keys.Tables))}
		for tk, series := range h.Keys.Tables {
			m := make(map[string]*history.KeySeries, len(series))
			for k, ks := range series {
				c := *ks
				c.Points = thin(ks.Points)
				m[k] = &c
			}
			keys.Tables[tk] = m
		}
		h.Keys = keys
	}
}

func thinMap[T any](m map[string][]T) map[string][]T {
	if m == nil {
		return nil
	}
	out := make(map[string][]T, len(m))
	for k, s := range m {
		out[k] = thin(s)
	}
	return out
}

// thin keeps every other point of s, oldest first, and always the newest.
func thin[T any](s []T) []T {
	if len(s) <= 2 {
		return s
	}
	out := make([]T, 0, len(s)/2+1)
	for i := 0; i < len(s)-1; i += 2 {
		out = append(out, s[i])
	}
	return append(out, s[len(s)-1])
}
