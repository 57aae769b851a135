package keyadvice

import (
	"time"

	"github.com/partmon/partmon/model"
)

// Advice is the key advisor's answer for one table: how it sampled, and a
// projection for its current key, then each candidate in the order given.
type Advice struct {
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	Sample   Sample `json:"sample"`
	// Keys: the current key first.
	Keys []Projection `json:"keys"`
}

// Sample is what the advice was measured on and what it cost the node.
type Sample struct {
	Node           string             `json:"node"`
	Taken          time.Time          `json:"taken"`
	Partitions     int                `json:"partitions"`
	Rows           int                `json:"rows"`
	Ranges         int                `json:"ranges"`
	Requests       int                `json:"requests"`
	RowsRead       int64              `json:"rows_read"`
	RingShare      float64            `json:"ring_share"`
	ElapsedSeconds float64            `json:"elapsed_seconds"`
	Stopped        string             `json:"stopped,omitempty"`
	Limits         model.SampleLimits `json:"limits"`
}

// Advise projects the current key and each of keys (already Checked) on s.
func Advise(s *model.KeySample, keys []Key, o Options) *Advice {
	a := &Advice{Keyspace: s.Keyspace, Table: s.Table, Sample: Sample{
		Node: s.Node, Taken: s.Taken, Partitions: len(s.Partitions), Ranges: len(s.Ranges), Requests: s.Cost.Requests,
		RowsRead: s.Cost.RowsRead, RingShare: s.Cost.RingShare, ElapsedSeconds: s.Cost.Elapsed.Seconds(), Stopped: s.Stopped, Limits: s.Limits,
	}}
	for _, p := range s.Partitions {
		a.Sample.Rows += len(p.Rows)
	}
	cur := CurrentKey(s.Columns)
	a.Keys = append(a.Keys, Project(s, cur, o))
	for _, k := range keys {
		if k.String() != cur.String() {
			a.Keys = append(a.Keys, Project(s, k, o))
		}
	}
	return a
}
