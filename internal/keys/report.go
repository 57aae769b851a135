package keys

import (
	"github.com/partmon/partmon/analyzer"
)

// Report is the report as every output shows it: its keys learned, then a
// redacted copy (Redact). Every output of the daemon and of the one-shot
// report reads the report through here (internal/publish.Latest.Publish and
// `partmon report`). The heatmap's key markers lose their token: a key's
// Murmur3 token is a hash without a secret, so a guessed key could be
// checked against it.
func Report(k *Keyer, r *analyzer.Report) *analyzer.Report {
	if r == nil || !k.Hides() {
		return r
	}
	LearnFrom(k, r)
	out := Redact(k, r)
	if out.Heat != nil {
		for i := range out.Heat.Maps {
			for j := range out.Heat.Maps[i].Keys {
				hk := &out.Heat.Maps[i].Keys[j]
				hk.Token, hk.OK, hk.Why = 0, false, "the key's position is not shown (keys.mode "+string(k.Mode())+")"
			}
		}
	}
	return out
}

// History is the history as the state file keeps it: in plain mode h
// itself; else a copy without the heatmap columns' hot keys (a hashed key
// read back would not be the key the next snapshot names, and its token
// could not be computed).
func History(k *Keyer, h *analyzer.History) *analyzer.History {
	if h == nil || !k.Hides() || h.Heat == nil {
		return h
	}
	out := *h
	heat := *h.Heat
	heat.Columns = make([]analyzer.HeatColumn, len(h.Heat.Columns))
	for i, c := range h.Heat.Columns {
		c.Keys = nil
		heat.Columns[i] = c
	}
	out.Heat = &heat
	return &out
}
