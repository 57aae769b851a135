package web

import (
	"github.com/partmon/partmon/keyadvice"
	"github.com/partmon/partmon/render"
)

// keyDesign draws the key advisor's part of the overview: its answers
// in their own section, and on the cards whose advice proposes a key.
func (p *statusPage) keyDesign(d *pageData) {
	held := p.advice.all()
	quoteMeasured(d.Urgent, held)
	quoteMeasured(d.Info, held)
	d.KeyDesign = newPageKeyDesign(p.advise, held, d.TablesWithFindings)
}

// quoteMeasured puts the key advisor's measurement beside a card's advice:
// where the advice proposes a key (Finding.SuggestedKey) and the advisor
// has answered for that table with that key among its candidates, the card
// shows the sampled projection instead of leaving the arithmetic alone;
// otherwise the command that measures it. held is newest first.
func quoteMeasured(ps []pageProblem, held []*keyadvice.Advice) {
	for i := range ps {
		p := &ps[i]
		if p.suggestedKey == "" {
			continue
		}
		want, err := keyadvice.ParseKey(p.suggestedKey)
		if err != nil {
			continue
		}
		for _, a := range held {
			if a.Keyspace != p.keyspace || a.Table != p.table {
				continue
			}
			for _, k := range a.Keys {
				if got, err := keyadvice.ParseKey(k.Key); err == nil && got.String() == want.String() {
					p.MeasuredSample, p.MeasuredLines = render.KeyDesignSample(a), render.KeyDesignLines(k)
					break
				}
			}
			break // the newest answer for the table only
		}
	}
}
