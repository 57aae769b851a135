package publish

import (
	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/internal/keys"
)

// Shown is the report as every output shows it: its keys learned by k,
// then a copy redacted as k's mode says (keys.Redact). Every output of the
// daemon (through Latest.Publish) and of `partmon report` reads the report
// through here. The heatmap's key markers lose their token in a mode that
// hides keys: a key's Murmur3 token is a hash without a secret, so a
// guessed key could be checked against it.
func Shown(k *keys.Keyer, r *analyzer.Report) *analyzer.Report {
	if r == nil || !k.Hides() {
		return r
	}
	keys.LearnFrom(k, r)
	out := keys.Redact(k, r)
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
