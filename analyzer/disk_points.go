package analyzer

import (
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

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
