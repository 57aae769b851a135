package truth

import (
	"fmt"
	"time"

	"github.com/partmon/partmon/analyzer"
)

// Which of partmon's own sampler windows a hot key's share on a node came
// from. The one-shot samples every node twice (collector.SampleAgain: the
// second pass starts when the first collection has ended, ~15 s later on a
// quiet box, 143 s on a loaded one) and grades each key at the window of
// lower assured share (analyzer's lowerOfPasses); the value it reports is
// that window's share. The recorder kept both windows as nodetool printed
// them, so the same choice can be made again from the same counts.

// windowShare is a key's share of one sampler in one recorded window,
// computed as partmon computes it from the same print.
type windowShare struct {
	run SamplerRun
	op  string // "read" or "write"
	// guaranteed is count − error (the space-saving sampler's guaranteed
	// count); total the table's listed counts of the sampler.
	guaranteed, total int64
	share, assured    float64
	// cut: the node's list was cut, so partmon's total there was the
	// table's rate × window, a figure nodetool does not print.
	cut bool
}

func shareIn(run SamplerRun, table, key, op string) windowShare {
	w := windowShare{run: run, op: op, cut: run.cut(op == "read", op == "write")}
	for _, kc := range run.Tables[table].list(op) {
		w.total += kc.Count
		if kc.Key == key {
			w.guaranteed += max(0, kc.Count-kc.Error)
		}
	}
	if w.total > 0 {
		w.share = float64(w.guaranteed) / float64(w.total)
		w.assured = analyzer.ShareAssured(float64(w.guaranteed), float64(w.total))
	}
	return w
}

// source says what the reference is.
func (w windowShare) source(windows int) string {
	s := fmt.Sprintf("the key's guaranteed count (count − error) of the %d %ss nodetool profileload printed for partmon's own %s run on the node",
		w.total, w.op, w.run.End.Sub(w.run.Start).Round(time.Second))
	if windows > 1 {
		s += fmt.Sprintf(" (of its %d windows there, the one of lower assured share: the one the one-shot grades and reports)", windows)
	}
	return s
}

func (p Profile) list(op string) []KeyCount {
	if op == "write" {
		return p.Writes
	}
	return p.Reads
}

func opsOf(reads, writes bool) []string {
	var ops []string
	if reads {
		ops = append(ops, "read")
	}
	if writes {
		ops = append(ops, "write")
	}
	return ops
}

// gradedShare is the share partmon reports for the key on a node from its
// windows there: per sampler the window of lower assured share (analyzer
// lowerOfPasses; a tie keeps the first), then of the samplers the one of
// higher assured share (analyzer addShare). all is every window's share;
// decided is false when a window's list was cut, since which one was
// lower cannot then be told from what nodetool printed.
func gradedShare(windows []SamplerRun, table, key string, ops []string) (graded windowShare, all []windowShare, decided bool) {
	decided = true
	for i, op := range ops {
		var lower windowShare
		for j, run := range windows {
			w := shareIn(run, table, key, op)
			all = append(all, w)
			decided = decided && !w.cut
			if j == 0 || w.assured < lower.assured {
				lower = w
			}
		}
		if i == 0 || lower.assured > graded.assured {
			graded = lower
		}
	}
	return graded, all, decided
}

// gradedWindowCheck holds partmon's share of the key on a node to the
// window it graded. Where a cut list leaves that undecided, a figure
// matching one of its uncut windows is accepted (the source says so), and
// one matching none gets no check: it may be the cut window's, whose total
// nodetool does not print.
func gradedWindowCheck(f *Finding, node string, windows []SamplerRun, tk string, ops []string) (FigureCheck, bool) {
	graded, all, decided := gradedShare(windows, tk, f.PartitionKey, ops)
	switch {
	case len(all) == 0:
		return FigureCheck{}, false
	case decided && graded.total == 0:
		return newCheck(f, node, 0, "partmon's own nodetool profileload run on the node lists no operation of the table", 10), true
	case decided:
		return newCheck(f, node, graded.share, graded.source(len(windows)), 10), true
	}
	for _, w := range all {
		if w.cut || w.total == 0 {
			continue
		}
		c := newCheck(f, node, w.share, w.source(1)+"; another of partmon's windows there has a cut list, so which one it graded cannot be told: its figure matches this one", 10)
		if c.OK {
			return c, true
		}
	}
	return FigureCheck{}, false
}

// partmonWindows are the node's recorded runs, of those that ended before
// the report was read, that its report took the node's share from: in the
// one-shot its every run (two; one where a pass failed, and the recorder
// keeps no failed run), however far apart; in a daemon's report the run of
// its pass, the one that started nearest to pass (zero: the latest).
func (o *Observations) partmonWindows(node string, pass time.Time) []SamplerRun {
	var runs []SamplerRun
	for _, r := range o.Samples[node] {
		if o.ReportRead.IsZero() || !r.End.After(o.ReportRead) {
			runs = append(runs, r)
		}
	}
	if o.SampledTwice {
		return runs[max(0, len(runs)-2):]
	}
	if r, ok := runNear(runs, pass); ok {
		return []SamplerRun{r}
	}
	return nil
}

// runNear is the run that started nearest to t (the latest run when t is zero).
func runNear(runs []SamplerRun, t time.Time) (SamplerRun, bool) {
	if len(runs) == 0 {
		return SamplerRun{}, false
	}
	if t.IsZero() {
		return runs[len(runs)-1], true
	}
	best := runs[0]
	for _, r := range runs[1:] {
		if r.Start.Sub(t).Abs() < best.Start.Sub(t).Abs() {
			best = r
		}
	}
	return best, true
}
