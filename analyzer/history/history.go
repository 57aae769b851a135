package history

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/analyzer/scope"
	"github.com/partmon/partmon/internal/configerr"
	"github.com/partmon/partmon/model"
)

// Version is the format of a serialized History. A state file of
// another version is refused, not guessed at.
const Version = 1

// sizeKeepAlive: an unchanged largest-partition size is recorded again only
// after this long. Estimates refresh every few minutes, so most cycles repeat
// the last value; storing the changes (and a point now and then) keeps step
// functions as steps and the series small.
const sizeKeepAlive = 10 * time.Minute

// Limits bound a History.
type Limits struct {
	// MaxPoints per largest-partition series; older points are thinned
	// so that spacing grows with age (recent growth stays visible).
	MaxPoints int `yaml:"max_points" json:"max_points"`
	// MaxAge drops older points, and series of tables gone for that long.
	MaxAge time.Duration `yaml:"max_age" json:"max_age"`
	// TrafficWindow is the window of the traffic rates (hot_token_range).
	TrafficWindow time.Duration `yaml:"traffic_window" json:"traffic_window"`
	// HeatColumns bound the heatmap's time columns; older ones are merged
	// so that their span grows with age. HeatTables bound the tables per
	// column, the busiest kept.
	HeatColumns int `yaml:"heat_columns" json:"heat_columns,omitempty"`
	HeatTables  int `yaml:"heat_tables" json:"heat_tables,omitempty"`
	// KeysPerTable is the top N keys of a table, by size, by tombstones and
	// by traffic share, whose figures the key history records each cycle;
	// KeyPoints bound a key's series, MaxKeys the series of all tables.
	KeysPerTable int `yaml:"keys_per_table" json:"keys_per_table,omitempty"`
	KeyPoints    int `yaml:"key_points" json:"key_points,omitempty"`
	MaxKeys      int `yaml:"max_keys" json:"max_keys,omitempty"`
}

// DefaultLimits keep two weeks of size history in 96 points per table
// and a 15-minute traffic window: about 3 KiB of JSON per table, plus about
// 150 bytes per busy table per node (6 MB for 1,000 tables on 30 nodes);
// the heatmap's 120 columns of at most 64 tables add about 10 bytes per
// table, node and column (2.3 MB at 30 nodes).
func DefaultLimits() Limits {
	return Limits{MaxPoints: 96, MaxAge: 14 * 24 * time.Hour, TrafficWindow: 15 * time.Minute,
		HeatColumns: 120, HeatTables: 64, KeysPerTable: 5, KeyPoints: 48, MaxKeys: 10000}
}

// Validate checks the limits.
func (l Limits) Validate() error {
	var errs []error
	if l.MaxPoints < 8 || l.MaxPoints > 10000 {
		errs = append(errs, configerr.Field("max_points", "must be in 8..10000, got %d", l.MaxPoints))
	}
	if l.MaxAge < time.Hour {
		errs = append(errs, configerr.Field("max_age", "must be at least 1h, got %s", l.MaxAge))
	}
	if l.TrafficWindow < time.Minute {
		errs = append(errs, configerr.Field("traffic_window", "must be at least 1m, got %s", l.TrafficWindow))
	}
	if l.HeatColumns != 0 && (l.HeatColumns < 8 || l.HeatColumns > 1000) {
		errs = append(errs, configerr.Field("heat_columns", "must be in 8..1000, got %d", l.HeatColumns))
	}
	if l.HeatTables != 0 && (l.HeatTables < 1 || l.HeatTables > 1000) {
		errs = append(errs, configerr.Field("heat_tables", "must be in 1..1000, got %d", l.HeatTables))
	}
	if l.KeysPerTable != 0 && (l.KeysPerTable < 1 || l.KeysPerTable > 100) {
		errs = append(errs, configerr.Field("keys_per_table", "must be in 1..100, got %d", l.KeysPerTable))
	}
	if l.KeyPoints != 0 && (l.KeyPoints < 8 || l.KeyPoints > 1000) {
		errs = append(errs, configerr.Field("key_points", "must be in 8..1000, got %d", l.KeyPoints))
	}
	if l.MaxKeys != 0 && (l.MaxKeys < 1 || l.MaxKeys > 1000000) {
		errs = append(errs, configerr.Field("max_keys", "must be in 1..1000000, got %d", l.MaxKeys))
	}
	if l.MaxAge > 0 && l.TrafficWindow > l.MaxAge {
		errs = append(errs, configerr.Field("traffic_window", "(%s) must not be longer than max_age (%s)", l.TrafficWindow, l.MaxAge))
	}
	return errors.Join(errs...)
}

// SizePoint is [unix seconds, largest partition bytes in the cluster].
type SizePoint [2]int64

// TrafficPoint is [unix seconds, local reads, local writes] (cumulative counters).
type TrafficPoint [3]int64

// History is what the analyzer remembers of earlier snapshots: the largest
// partition of every table over time (for forecasts) and the traffic
// counters of every (node, table) over the traffic window (for rates). It is
// JSON-serializable and bounded by Limits. It is not safe for concurrent
// use: record and analyze from one goroutine.
type History struct {
	Version int    `json:"version"`
	Limits  Limits `json:"limits"`
	// Sizes is keyed by model.TableKey.
	Sizes map[string][]SizePoint `json:"sizes"`
	// Traffic is keyed by host ID, then model.TableKey.
	Traffic map[string]map[string][]TrafficPoint `json:"traffic"`
	// Heat is the heatmap's rates over time; absent from state files
	// written before it (the first column then starts at the next cycle).
	Heat *Heat `json:"heat,omitempty"`
	// Keys is every named key's figures over time; absent from state files
	// written before it, and from those of a partmon that hides keys.
	Keys *KeyHistory `json:"keys,omitempty"`
	// Disks is each node's data-directory bytes over time (the data_disk
	// source), keyed by host ID, bounded as Sizes.
	Disks map[string][]SizePoint `json:"disks,omitempty"`
}

// New returns an empty history with the given limits (defaults for
// zero fields).
func New(l Limits) *History {
	h := &History{Version: Version, Limits: withDefaults(l)}
	h.init()
	return h
}

// Decode reads a serialized History and applies limits to it.
func Decode(data []byte, l Limits) (*History, error) {
	var h History
	if err := json.Unmarshal(data, &h); err != nil {
		return nil, fmt.Errorf("decoding history: %w", err)
	}
	if h.Version != Version {
		return nil, fmt.Errorf("history version %d is not supported (want %d)", h.Version, Version)
	}
	h.Limits = withDefaults(l)
	h.init()
	h.prune(newestPoint(&h))
	return &h, nil
}

func withDefaults(l Limits) Limits {
	d := DefaultLimits()
	l.MaxPoints = cmp.Or(l.MaxPoints, d.MaxPoints)
	l.MaxAge = cmp.Or(l.MaxAge, d.MaxAge)
	l.TrafficWindow = cmp.Or(l.TrafficWindow, d.TrafficWindow)
	l.HeatColumns = cmp.Or(l.HeatColumns, d.HeatColumns)
	l.HeatTables = cmp.Or(l.HeatTables, d.HeatTables)
	l.KeysPerTable = cmp.Or(l.KeysPerTable, d.KeysPerTable)
	l.KeyPoints = cmp.Or(l.KeyPoints, d.KeyPoints)
	l.MaxKeys = cmp.Or(l.MaxKeys, d.MaxKeys)
	return l
}

func (h *History) init() {
	if h.Version == 0 {
		h.Version = Version
	}
	if h.Limits == (Limits{}) {
		h.Limits = DefaultLimits()
	}
	if h.Sizes == nil {
		h.Sizes = map[string][]SizePoint{}
	}
	if h.Traffic == nil {
		h.Traffic = map[string]map[string][]TrafficPoint{}
	}
}

// Record adds what s measured, within its scope (scope.Of(s)); see
// RecordIndexed, which Analyze calls with the index its rules read.
func (h *History) Record(s *model.Snapshot, sc scope.Scope) {
	if h == nil || s == nil || s.Taken.IsZero() {
		return
	}
	h.RecordIndexed(index.Of(s, sc))
}

// RecordIndexed adds what the indexed snapshot measured: system keyspaces
// are not recorded (the index leaves them out), and nodes whose traffic
// counters were not read this cycle add no traffic points (their counters
// are from an earlier read). Recording the same snapshot twice, or an
// older one, changes nothing.
func (h *History) RecordIndexed(ix *index.Index) {
	if h == nil || ix == nil || ix.Snapshot == nil || ix.Snapshot.Taken.IsZero() {
		return
	}
	h.init()
	now := ix.Snapshot.Taken.Unix()
	for _, t := range ix.Tables {
		if t.MaxBytes > 0 {
			h.Sizes[t.Key] = h.appendSize(h.Sizes[t.Key], SizePoint{now, t.MaxBytes}, now)
		}
	}
	h.recordKeys(ix, now)
	h.recordDisks(ix)
	h.recordHeat(ix, now) // before the traffic points move on to the snapshot's counters
	stale := ix.Scope.StaleTraffic
	for _, t := range ix.Tables {
		for _, row := range t.Nodes {
			hostID, ts := row.Node.HostID, row.Raw
			if stale[hostID] || (ts.LocalReads.Count == 0 && ts.LocalWrites.Count == 0) {
				continue
			}
			byTable := h.Traffic[hostID]
			if byTable == nil {
				byTable = map[string][]TrafficPoint{}
				h.Traffic[hostID] = byTable
			}
			byTable[t.Key] = h.appendTraffic(byTable[t.Key], TrafficPoint{now, ts.LocalReads.Count, ts.LocalWrites.Count})
		}
	}
	h.prune(now)
}

func (h *History) appendSize(pts []SizePoint, p SizePoint, now int64) []SizePoint {
	if n := len(pts); n > 0 {
		last := pts[n-1]
		switch {
		case p[0] <= last[0]:
			return pts // same or older snapshot
		case p[1] == last[1] && p[0]-last[0] < int64(sizeKeepAlive/time.Second):
			return pts
		}
	}
	pts = append(pts, p)
	for len(pts) > h.Limits.MaxPoints {
		pts = thinOnce(pts, now)
	}
	return pts
}

// thinOnce removes the interior point whose removal leaves the smallest gap
// relative to the age of that gap, so spacing grows with age.
func thinOnce(pts []SizePoint, now int64) []SizePoint {
	best, bestCost := -1, 0.0
	for i := 1; i < len(pts)-1; i++ {
		age := float64(now - pts[i-1][0])
		if age <= 0 {
			age = 1
		}
		cost := float64(pts[i+1][0]-pts[i-1][0]) / age
		if best < 0 || cost < bestCost {
			best, bestCost = i, cost
		}
	}
	if best < 0 {
		return pts[1:]
	}
	return append(pts[:best], pts[best+1:]...)
}

func (h *History) appendTraffic(pts []TrafficPoint, p TrafficPoint) []TrafficPoint {
	minGap := int64(h.Limits.TrafficWindow / 4 / time.Second)
	if n := len(pts); n > 0 {
		last := pts[n-1]
		switch {
		case p[0] <= last[0]:
			return pts
		case p[1] < last[1] || p[2] < last[2]:
			pts = pts[:0] // the node restarted: earlier counts do not continue
		case p[1] == last[1] && p[2] == last[2] && p[0]-last[0] < minGap:
			// Unchanged: the source may not have been read again; the older
			// point dates the value better.
			return pts
		}
	}
	pts = append(pts, p)
	if n := len(pts); n >= 3 && pts[n-2][0]-pts[n-3][0] < minGap {
		pts = append(pts[:n-2], pts[n-1])
	}
	// Keep one point at or before the window's start as the rate's base.
	start := p[0] - int64(h.Limits.TrafficWindow/time.Second)
	for len(pts) >= 2 && pts[1][0] <= start {
		pts = pts[1:]
	}
	return pts
}

// since is pts from the first point at or after oldest.
func since(pts []SizePoint, oldest int64) []SizePoint {
	i := 0
	for i < len(pts) && pts[i][0] < oldest {
		i++
	}
	return pts[i:]
}

// prune drops points older than MaxAge and series that ended long ago.
func (h *History) prune(now int64) {
	oldest := now - int64(h.Limits.MaxAge/time.Second)
	for key, pts := range h.Sizes {
		pts = since(pts, oldest)
		if len(pts) == 0 {
			delete(h.Sizes, key)
			continue
		}
		for len(pts) > h.Limits.MaxPoints {
			pts = thinOnce(pts, now)
		}
		h.Sizes[key] = pts
	}
	trafficOldest := now - 2*int64(h.Limits.TrafficWindow/time.Second)
	for host, byTable := range h.Traffic {
		for key, pts := range byTable {
			if len(pts) == 0 || pts[len(pts)-1][0] < trafficOldest {
				delete(byTable, key)
			}
		}
		if len(byTable) == 0 {
			delete(h.Traffic, host)
		}
	}
	h.pruneHeat(now)
	h.pruneKeys(oldest)
	h.pruneDisks(oldest)
}

func newestPoint(h *History) int64 {
	var newest int64
	for _, pts := range h.Sizes {
		if n := len(pts); n > 0 && pts[n-1][0] > newest {
			newest = pts[n-1][0]
		}
	}
	for _, byTable := range h.Traffic {
		for _, pts := range byTable {
			if n := len(pts); n > 0 && pts[n-1][0] > newest {
				newest = pts[n-1][0]
			}
		}
	}
	if h.Heat != nil && h.Heat.Last > newest {
		newest = h.Heat.Last
	}
	return newest
}

// SizeSeries is a table's largest-partition series up to (not including)
// time before.
func (h *History) SizeSeries(key string, before int64) []SizePoint {
	if h == nil {
		return nil
	}
	pts := h.Sizes[key]
	n := len(pts)
	for n > 0 && pts[n-1][0] >= before {
		n--
	}
	return pts[:n]
}

// TrafficBase is the oldest traffic point of (host, table) before time
// before: the start of the rate window.
func (h *History) TrafficBase(hostID, key string, before int64) (TrafficPoint, bool) {
	if h == nil {
		return TrafficPoint{}, false
	}
	pts := h.Traffic[hostID][key]
	if len(pts) == 0 || pts[0][0] >= before {
		return TrafficPoint{}, false
	}
	return pts[0], true
}
