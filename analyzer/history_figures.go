package analyzer

import (
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// keyHistories copies the history's key series for the report (the
// history goes on changing after the analysis).
func (a figures) keyHistories() map[string][]history.NamedKeySeries {
	out := map[string][]history.NamedKeySeries{}
	for _, t := range a.tables {
		ks := a.h.KeysOf(t.keyspace, t.name)
		for i := range ks {
			ks[i].Points = append([]history.KeyPoint(nil), ks[i].Points...)
			ks[i].Replicas = append([]string(nil), ks[i].Replicas...)
		}
		if len(ks) > 0 {
			out[t.key] = ks
		}
	}
	return out
}

// diskPointsNow is a node's recorded data-directory bytes before the
// current read, then the current read.
func (a *analysis) diskPointsNow(hostID string, nd *model.NodeData) []history.SizePoint {
	at := history.DataDiskReadAt(a.s, nd.Address)
	var pts []history.SizePoint
	if a.h != nil {
		for _, p := range a.h.Disks[hostID] {
			if p[0] < at {
				pts = append(pts, p)
			}
		}
	}
	return append(pts, history.SizePoint{at, nd.DataDisk.UsedBytes})
}
