package collector

import (
	"time"

	"github.com/partmon/partmon/model"
)

// holdingEvidence are the sources whose figures together say whether a
// table holds anything on a node: a live sstable (disk_usage is rounded up
// to whole MiB, so any byte on disk shows) or a write since the node
// started (what its memtable can hold; a commit log replayed at start-up is
// flushed to sstables before the node serves clients).
var holdingEvidence = []string{"disk_usage", "local_write_latency"}

// holdingFreshFor is how old that evidence may be: both sources run every
// minute by default, so this allows one missed read. Older evidence (a
// failing source, slower configured periods) is not used.
const holdingFreshFor = 3 * time.Minute

// holding is the set of the node's tables (system tables included) whose
// latest figures show data on disk or a write, nil when a holdingEvidence
// source has no successful read within holdingFreshFor or failed its last
// one. A table written after that read is missed until the next run.
func (c *Collector) holding(node string) map[string]bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := map[string]bool{}
	for _, src := range holdingEvidence {
		res, ok := c.results[resultKey{source: src, node: node}]
		if !ok || res.out == nil || res.status.State != model.StateOK || c.now().Sub(res.status.LastSuccess) > holdingFreshFor {
			return nil
		}
		for t, ts := range res.out.Node.Tables {
			if ts.DiskUsageBytes > 0 || ts.LocalWrites.Count > 0 {
				out[t] = true
			}
		}
	}
	return out
}
