package main

import (
	"fmt"
	"math"

	"github.com/partmon/partmon/model"
)

// The mixes of user tables the fleet replays (--mix).
const (
	// MixBusy is the worst case for the series count: every user table busy
	// (reads, writes, a tombstones-per-read histogram) at its captured size,
	// so a sidecar publishes every per-table-per-node family a real one can
	// (docs/scale.md: 7 per table and node, the traffic skew being cluster
	// mode's only).
	MixBusy = "busy"
	// MixRealistic is most tables idle and small, a few busy, a few large:
	// of every 20 tables 14 idle and small (70 %), 5 busy at the captured
	// size (25 %), 1 busy and large (5 %, 1 to 5 GiB). No source we know
	// (users' reports give clusters of 300 to 10,000 tables and 200
	// keyspaces, never how many of them are used) says how many of a
	// cluster's tables are idle or small: the shares are an assumption. A node holds hundreds or thousands of tables
	// when many teams or tenants get keyspaces of their own, and most of
	// those hold little and are seldom touched, the way most of a shared
	// database's schemas are; a few carry the traffic and fewer the data.
	MixRealistic = "realistic"
)

// Mixes are the --mix values.
var Mixes = []string{MixBusy, MixRealistic}

// realisticCycle is the realistic mix's pattern, repeated every
// len(realisticCycle) tables: busy first, so table 0 (the planted growth's)
// is busy at the captured size in either mix. 5 busy (25 %), 1 large (5 %),
// 14 idle (70 %).
var realisticCycle = [20]tableKind{
	kindBusy, kindBusy, kindBusy, kindBusy, kindBusy,
	kindLarge,
	kindIdle, kindIdle, kindIdle, kindIdle, kindIdle, kindIdle, kindIdle,
	kindIdle, kindIdle, kindIdle, kindIdle, kindIdle, kindIdle, kindIdle,
}

// tableKind is what a scaled table's figures look like.
type tableKind int

const (
	kindBusy  tableKind = iota // the captured size, busy traffic (makeBusy)
	kindIdle                   // 64 KiB, no operation since the node started (makeIdle)
	kindLarge                  // 1 to 5 GiB, busy traffic (makeLarge)
)

func (k tableKind) String() string {
	return [...]string{"busy", "idle", "large"}[k]
}

// kindOf is the kind of user table j of tables in the shape's mix: in the
// busy mix the last IdleShare of them are idle (the floor's old
// measurement), in the realistic mix realisticCycle says.
func (s Shape) kindOf(j int) tableKind {
	if s.Mix == MixRealistic {
		return realisticCycle[j%len(realisticCycle)]
	}
	if j >= s.Tables-int(math.Round(s.IdleShare*float64(s.Tables))) {
		return kindIdle
	}
	return kindBusy
}

// largeBytes is the disk use of large table j: 1, 2, … 5 GiB in turn.
func largeBytes(j int) int64 { return int64(1+(j/len(realisticCycle))%5) << 30 }

func validMix(m string) error {
	for _, x := range Mixes {
		if m == x {
			return nil
		}
	}
	return fmt.Errorf("mix %q: want one of %v", m, Mixes)
}

// idleDiskBytes is the disk use an idle table is given: one small sstable.
const idleDiskBytes = 64 << 10

// makeIdle: a small table that served no operation since the node started
// (a real node's counters start at 0 and an idle table's stay there), so
// it has no tombstones-per-read histogram either.
func makeIdle(st *model.TableStats) {
	st.DiskUsageBytes, st.MaxSSTableBytes = idleDiskBytes, idleDiskBytes
	for _, ops := range []*model.Ops{&st.LocalReads, &st.LocalWrites, &st.LocalScans} {
		*ops = model.Ops{}
	}
	st.TombstonesPerRead, st.RowsPerRead = model.Distribution{}, model.Distribution{}
}

// Busy traffic. The captured healthy table (pm_clean.users_by_id) was
// loaded by writes alone: its writes (count, Cassandra's moving rate of
// about 41/s and p99) are replayed as captured, but it had no reads and so
// no tombstones-per-read histogram, and with them a busy table would
// publish only 5 of its 7 families. Its reads are synthetic: busyReadShare
// of its captured writes (count, moving rate and measured rate; the writes'
// p99 latency). A template with no writes either gets synthetic writes of
// fallbackWritesPerSecond over fallbackSpan.
const (
	busyReadShare           = 0.5
	fallbackWritesPerSecond = 10.0
	fallbackSpan            = 600 // seconds of traffic behind the fallback's count
)

// makeBusy gives a table reads and writes, and a tombstones-per-read
// histogram of as many reads with P99 = 0 (and P50 and Max): a healthy
// table scans no tombstones at p99, and partmon publishes that 0 as a
// real, measured value. Figures a template captured are kept.
func makeBusy(st *model.TableStats) {
	w := &st.LocalWrites
	if w.Count <= 0 && w.PerSecond <= 0 && w.Rate <= 0 {
		*w = model.Ops{Count: fallbackWritesPerSecond * fallbackSpan, PerSecond: fallbackWritesPerSecond, Rate: -1, P99Seconds: 0.002}
	}
	r := &st.LocalReads
	if r.Count <= 0 && r.PerSecond <= 0 && r.Rate <= 0 {
		rate := w.Rate
		if rate > 0 {
			rate *= busyReadShare
		}
		*r = model.Ops{Count: int64(math.Round(float64(w.Count) * busyReadShare)), PerSecond: w.PerSecond * busyReadShare,
			Rate: rate, P99Seconds: w.P99Seconds}
	}
	if st.TombstonesPerRead.Count <= 0 {
		st.TombstonesPerRead = model.Distribution{Count: max(r.Count, 1)}
	}
}

// makeLarge: a busy table of size bytes on disk, its sstable and partition
// counts grown with it (its partitions stay as large as captured: a large
// table of small partitions, which no rule flags).
func makeLarge(st *model.TableStats, size int64) {
	makeBusy(st)
	if st.DiskUsageBytes > 0 {
		f := float64(size) / float64(st.DiskUsageBytes)
		st.PartitionsEstimate = int64(math.Round(float64(st.PartitionsEstimate) * f))
		st.MaxSSTableBytes = min(size, int64(math.Round(float64(st.MaxSSTableBytes)*f)))
	}
	st.DiskUsageBytes = size
}
