package history

import (
	"github.com/partmon/partmon/analyzer/index"
	"github.com/partmon/partmon/model"
)

// DataDiskSource is the collector source whose figures the disk history
// records (collector/data_disk.go).
const DataDiskSource = "data_disk"

// recordDisks adds each node's data-directory bytes (model.DataDisk) at the
// time the data_disk source read them: a node whose read failed adds no
// point, its figure is the old one.
func (h *History) recordDisks(ix *index.Index) {
	s := ix.Snapshot
	for _, n := range ix.Nodes {
		hostID, nd := n.HostID, n.Data
		if nd.DataDisk == nil {
			continue
		}
		if h.Disks == nil {
			h.Disks = map[string][]SizePoint{}
		}
		at := DataDiskReadAt(s, nd.Address)
		h.Disks[hostID] = h.appendSize(h.Disks[hostID], SizePoint{at, nd.DataDisk.UsedBytes}, at)
	}
}

// DataDiskReadAt is when the data_disk source last read the node (unix
// seconds): its last success, else the snapshot's time.
func DataDiskReadAt(s *model.Snapshot, address string) int64 {
	for _, st := range s.Sources {
		if st.Source == DataDiskSource && st.Node == address && !st.LastSuccess.IsZero() {
			return st.LastSuccess.Unix()
		}
	}
	return s.Taken.Unix()
}

// pruneDisks drops points older than oldest and nodes left with none.
func (h *History) pruneDisks(oldest int64) {
	for host, pts := range h.Disks {
		if pts = since(pts, oldest); len(pts) == 0 {
			delete(h.Disks, host)
		} else {
			h.Disks[host] = pts
		}
	}
}
