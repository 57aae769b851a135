package truth

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Observations are what the real nodetool said around a partmon run, on
// the same nodes: the reference for every figure partmon prints.
type Observations struct {
	// Stats is tablestats at the end of the window, by node then "ks.table";
	// StatsStart at its start (counter deltas are the window's traffic).
	Stats      map[string]map[string]TableStat `json:"stats"`
	StatsStart map[string]map[string]TableStat `json:"stats_start"`
	// StatsBegin is tablestats when partmon began (the daemon's start, before
	// the corpus grows its partition): with Stats it brackets every size
	// partmon read in the phase. Nil when the phase has no earlier figures
	// than StatsStart.
	StatsBegin map[string]map[string]TableStat `json:"stats_begin,omitempty"`
	// Status is `nodetool status KEYSPACE` by keyspace ("": no keyspace, for load).
	Status map[string][]StatusNode `json:"status"`
	// Histograms and Profiles by node then "ks.table".
	Histograms map[string]map[string]TableHistograms `json:"histograms"`
	Profiles   map[string]map[string]Profile         `json:"profiles"`
	// Samples are the nodetool profileload runs partmon itself made in the
	// phase, as nodetool printed them, by node (tools/truth/samples.go): the same
	// window as partmon's sampled shares. ReportRead is when partmon's
	// report was read; later runs cannot be in it.
	Samples    map[string][]SamplerRun `json:"samples,omitempty"`
	ReportRead time.Time               `json:"report_read"`
	// SampledTwice: the report is the one-shot's, which samples every node
	// twice (collector.SampleAgain) and grades a key at the lower of the
	// two windows; a daemon's report takes one window of one pass.
	SampledTwice bool `json:"sampled_twice,omitempty"`
}

// FigureCheck compares one figure of a finding with nodetool (or with the
// rows the corpus wrote, where nodetool has no such figure).
type FigureCheck struct {
	Finding   string  `json:"finding"`
	Kind      string  `json:"kind"`
	Keyspace  string  `json:"keyspace"`
	Table     string  `json:"table,omitempty"`
	Node      string  `json:"node,omitempty"`
	Partmon   float64 `json:"partmon"`
	Reference float64 `json:"reference"`
	// ReferenceFrom, when set, makes the reference the range [ReferenceFrom,
	// Reference]: a figure that grew while partmon read it (a growing
	// partition), partmon's reading taken somewhere in between.
	ReferenceFrom float64 `json:"reference_from,omitempty"`
	Source        string  `json:"source"` // what the reference is
	// ErrorPct is |partmon − reference| ÷ reference; nil when the reference
	// is 0 and partmon's figure is not (no relative error exists; JSON has
	// no infinity).
	ErrorPct  *float64 `json:"error_pct,omitempty"`
	Tolerance float64  `json:"tolerance_pct"`
	// Bound is "upper" or "lower" when the finding states its value as a
	// bound ("at most", "at least"): the check is then that the bound holds.
	Bound string `json:"bound,omitempty"`
	OK    bool   `json:"ok"`
	// LaterWindow marks a sampled share held to a sample of another window
	// than partmon's (Cassandra samples a table once at a time): listed, and
	// counted apart from the figures, as two draws of a traffic whose mix
	// moves can differ by more than their sampling error.
	LaterWindow bool `json:"later_window,omitempty"`
}

// boundOf reads whether a finding states its value as a bound: the first
// "at most" or "at least" of the summary is the value's (a later one bounds
// something else: "at least 105,779 rows; … holds at most 349,525 rows of 3
// bytes").
func boundOf(summary string) string {
	s := strings.ToLower(summary)
	most, least := strings.Index(s, "at most"), strings.Index(s, "at least")
	switch {
	case most >= 0 && (least < 0 || most < least):
		return "upper"
	case least >= 0:
		return "lower"
	}
	return ""
}

func newCheck(f *Finding, node string, ref float64, source string, tolerance float64) FigureCheck {
	v := f.valueOn(node)
	c := FigureCheck{Finding: f.ID, Kind: f.Kind, Keyspace: f.Keyspace, Table: f.Table, Node: node,
		Partmon: v, Reference: ref, Source: source, Tolerance: tolerance}
	switch {
	case ref == 0 && v == 0:
		c.OK = true
	case ref == 0:
	default:
		e := 100 * math.Abs(v-ref) / math.Abs(ref)
		c.ErrorPct = &e
		c.OK = e <= tolerance
	}
	// A bound is right when it holds, however loose; a loose one is still
	// listed by its error.
	switch c.Bound = boundOf(f.Summary); c.Bound {
	case "upper":
		c.OK = ref <= v*(1+tolerance/100)
	case "lower":
		c.OK = v <= ref*(1+tolerance/100)
	}
	return c
}

// newRangeCheck holds partmon's value to a reference that moved from lo to
// hi while partmon read it: within tolerance of the range, the error being
// the distance to its nearer end (0 inside).
func newRangeCheck(f *Finding, node string, lo, hi float64, source string, tolerance float64) FigureCheck {
	c := newCheck(f, node, hi, source, tolerance)
	if c.Bound != "" || lo <= 0 || lo >= hi {
		return c
	}
	c.ReferenceFrom = lo
	v, e := c.Partmon, 0.0
	switch {
	case v < lo:
		e = 100 * (lo - v) / lo
	case v > hi:
		e = 100 * (v - hi) / hi
	}
	c.ErrorPct, c.OK = &e, e <= tolerance
	return c
}

// figureContext is what a figure check needs beyond the finding.
type figureContext struct {
	obs        *Observations
	hosts      []string
	dc         map[string]string
	replicas   int   // total replicas of the keyspace (Σ of its factors); 0 unknown
	truthRows  int64 // live rows of the table's largest partition, as written
	cellsOfRow int   // regular (non-key) columns: cells per row
	truthParts int64 // partitions written into the table
}

// checkFigures compares a finding's value with the nodetool figure that
// measures the same thing on the same node. Kinds with no such figure give
// no check.
func checkFigures(f *Finding, fc figureContext) []FigureCheck {
	nodes := f.AllNodes()
	if len(nodes) == 0 {
		if nodeScoped[f.Kind] {
			return nil // a per-node figure of no named node: nothing to compare it with
		}
		nodes = fc.hosts
	}
	tk := f.Keyspace + "." + f.Table
	var out []FigureCheck
	switch f.Kind {
	case "oversized_partition", "unbucketed_time_series":
		out = append(out, sizeChecks(f, nodes, tk, fc)...)
	case "wide_partition":
		if fc.truthRows > 0 {
			out = append(out, newCheck(f, "", float64(fc.truthRows), "live rows the corpus wrote into the table's largest partition", 10))
		}
		if fc.cellsOfRow > 0 {
			node, cells := maxOver(nodes, func(n string) float64 { return fc.obs.Histograms[n][tk].Cells.Max })
			if cells > 0 {
				out = append(out, newCheck(f, node, cells/float64(fc.cellsOfRow),
					fmt.Sprintf("tablehistograms max cell count ÷ %d cells per row (a histogram bucket bound: ±20 %%)", fc.cellsOfRow), 20))
			}
		}
	case "tombstone_heavy":
		out = append(out, tombstoneChecks(f, nodes, tk, fc)...)
	case "hot_partition":
		out = append(out, hotKeyChecks(f, nodes, tk, fc)...)
	case "hot_token_range":
		for _, n := range nodes {
			if ratio, src, ok := trafficRatio(f, n, fc); ok {
				out = append(out, newCheck(f, n, ratio, src, 10))
			}
		}
	case "ownership_skew":
		for _, n := range nodes {
			if skew, ok := ownershipSkew(fc.obs.Status[f.Keyspace], n); ok {
				out = append(out, newCheck(f, n, skew, "nodetool status "+f.Keyspace+": effective ownership ÷ (Σ ownership in the DC ÷ its nodes)", 10))
			}
		}
	case "load_skew":
		for _, n := range nodes {
			if skew, ok := loadSkew(fc.obs.Status[""], n); ok {
				out = append(out, newCheck(f, n, skew, "nodetool status: load ÷ the DC's mean load", 10))
			}
		}
	case "low_cardinality_key":
		// Not tablestats' partition estimate: partmon reads that very figure
		// (source nodetool_tablestats), so it witnesses nothing; the
		// partitions the corpus wrote do.
		if fc.truthParts > 0 {
			out = append(out, newCheck(f, "", float64(fc.truthParts), "partitions the corpus wrote", 10))
		}
	}
	return out
}

// samplingTolerance is the larger of 10 % and two standard errors of the
// difference of two independent samples of a share p (n1 and n2
// operations; n2 = n1 when partmon does not say how many it sampled),
// relative to p: two samplers that disagree by less cannot be told apart.
func samplingTolerance(p float64, n1, n2 int64) float64 {
	if n2 <= 0 {
		n2 = n1
	}
	if p <= 0 || p >= 1 || n1 <= 0 {
		return 10
	}
	se := math.Sqrt(p * (1 - p) * (1/float64(n1) + 1/float64(n2)))
	return math.Max(10, 100*2*se/p)
}

var sampledOpsRE = regexp.MustCompile(`of ([\d,]+) operations`)

// sampledOps reads how many operations partmon's sample held, when its
// summary says ("... of 41 operations ..."); 0 otherwise.
func sampledOps(summary string) int64 { return summaryNumber(sampledOpsRE, summary) }

// summaryNumber is the number re's first group finds in a summary ("1,234"
// reads 1234); 0 when it finds none.
func summaryNumber(re *regexp.Regexp, summary string) int64 {
	m := re.FindStringSubmatch(summary)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	return n
}

// nodeScoped kinds measure one node; their figure is that node's.
var nodeScoped = map[string]bool{"hot_partition": true, "hot_token_range": true, "ownership_skew": true, "load_skew": true}

func maxOver(nodes []string, v func(string) float64) (string, float64) {
	best, at := 0.0, ""
	for _, n := range nodes {
		if x := v(n); x > best || at == "" {
			best, at = x, n
		}
	}
	return at, best
}

// samplersOf reads which operations a hot-key finding speaks of.
func samplersOf(summary string) (reads, writes bool) {
	s := strings.ToLower(summary)
	r, w := strings.Contains(s, "read"), strings.Contains(s, "write")
	if r == w {
		return true, true
	}
	return r, w
}

// trafficRatio is the node's share of the table's local reads (or writes,
// when the finding speaks of writes) in its DC over the observation window,
// from tablestats counter deltas, ÷ its share of the DC's effective
// ownership of the keyspace (nodetool status KEYSPACE).
func trafficRatio(f *Finding, node string, fc figureContext) (float64, string, bool) {
	tk := f.Keyspace + "." + f.Table
	reads, writes := samplersOf(f.Summary)
	useWrites := writes && !reads
	count := func(s TableStat) int64 {
		if useWrites {
			return s.LocalWrites
		}
		return s.LocalReads
	}
	dc := fc.dc[node]
	var mine, all float64
	for _, n := range fc.hosts {
		if fc.dc[n] != dc {
			continue
		}
		d := float64(count(fc.obs.Stats[n][tk]) - count(fc.obs.StatsStart[n][tk]))
		all += d
		if n == node {
			mine = d
		}
	}
	var own, ownAll float64
	for _, s := range fc.obs.Status[f.Keyspace] {
		if s.DC == dc && s.Owns >= 0 {
			ownAll += s.Owns
			if s.Address == node {
				own = s.Owns
			}
		}
	}
	if all == 0 || own == 0 || ownAll == 0 {
		return 0, "", false
	}
	what := "reads"
	if useWrites {
		what = "writes"
	}
	src := fmt.Sprintf("tablestats local %s over the window: %.0f of %.0f in %s (%.1f %%) ÷ effective ownership share %.1f %% (nodetool status)",
		what, mine, all, dc, 100*mine/all, 100*own/ownAll)
	return (mine / all) / (own / ownAll), src, true
}

func ownershipSkew(status []StatusNode, node string) (float64, bool) {
	var dc string
	var own float64 = -1
	for _, s := range status {
		if s.Address == node {
			dc, own = s.DC, s.Owns
		}
	}
	if own < 0 {
		return 0, false
	}
	sum, n := 0.0, 0
	for _, s := range status {
		if s.DC == dc && s.Owns >= 0 {
			sum += s.Owns
			n++
		}
	}
	if sum == 0 {
		return 0, false
	}
	return own / (sum / float64(n)), true
}

func loadSkew(status []StatusNode, node string) (float64, bool) {
	var dc string
	load := -1.0
	for _, s := range status {
		if s.Address == node {
			dc, load = s.DC, s.LoadBytes
		}
	}
	if load < 0 {
		return 0, false
	}
	sum, n := 0.0, 0
	for _, s := range status {
		if s.DC == dc {
			sum += s.LoadBytes
			n++
		}
	}
	if sum == 0 {
		return 0, false
	}
	return load / (sum / float64(n)), true
}

// replicaCount is Σ of a keyspace's replication factors.
func replicaCount(repl map[string]string) int {
	n := 0
	for k, v := range repl {
		if k == "class" {
			continue
		}
		if x, err := strconv.Atoi(v); err == nil {
			n += x
		}
	}
	return n
}

// tombstoneChecks holds a tombstone finding's figure to nodetool tablestats'
// tombstones (or their share) per slice on each of its nodes.
func tombstoneChecks(f *Finding, nodes []string, tk string, fc figureContext) []FigureCheck {
	var out []FigureCheck
	for _, n := range nodes {
		st, ok := fc.obs.Stats[n][tk]
		if !ok {
			continue
		}
		switch f.Unit {
		case "tombstones":
			out = append(out, newCheck(f, n, st.MaxTombstonesPerSlice, "tablestats maximum tombstones per slice (last five minutes)", 10))
		case "ratio":
			if sum := st.MaxTombstonesPerSlice + st.MaxLiveRowsPerSlice; sum > 0 {
				out = append(out, newCheck(f, n, st.MaxTombstonesPerSlice/sum,
					"tablestats maximum tombstones ÷ (maximum tombstones + maximum live rows) per slice (last five minutes)", 10))
			}
		}
	}
	return out
}

// hotKeyChecks holds a hot key's share on each of its nodes to what
// nodetool printed for the window partmon graded it at (hotwindows.go),
// and to an independent nodetool profileload sample of a later window.
func hotKeyChecks(f *Finding, nodes []string, tk string, fc figureContext) []FigureCheck {
	var out []FigureCheck
	reads, writes := samplersOf(f.Summary)
	if f.PartitionKey == "" {
		return nil
	}
	// A daemon's report shows one pass: its node's run that lists the key
	// with partmon's count. Every node of one pass is sampled at once, so
	// the other replicas' runs are the ones that started nearest to it.
	var pass time.Time
	if runs := fc.obs.Samples[f.Node]; len(runs) > 0 {
		if run, ok := sameWindow(runs, fc.obs.ReportRead, tk, f.PartitionKey, sampledCount(f.Summary), reads, writes); ok {
			pass = run.Start
		}
	}
	for _, n := range nodes {
		if c, ok := gradedWindowCheck(f, n, fc.obs.partmonWindows(n, pass), tk, opsOf(reads, writes)); ok {
			out = append(out, c)
		}
		if p, ok := fc.obs.Profiles[n][tk]; ok {
			share, total := p.Share(f.PartitionKey, reads, writes)
			if total > 0 {
				c := newCheck(f, n, share, fmt.Sprintf("the key's share of %d operations sampled by nodetool profileload on the node, in a later window",
					total), samplingTolerance(share, total, sampledOps(f.Summary)))
				c.LaterWindow = true
				out = append(out, c)
			}
		}
	}
	return out
}

var sampledCountRE = regexp.MustCompile(`\(([\d,]+) ± [\d,]+ of [\d,]+ operations`)

// sampledCount reads the key's sampled count from partmon's summary
// ("(46 ± 0 of 95 operations"); 0 when it does not say.
func sampledCount(summary string) int64 { return summaryNumber(sampledCountRE, summary) }

// sizeChecks holds a partition size (oversized, unbucketed) to tablestats'
// largest partition on the finding's nodes.
func sizeChecks(f *Finding, nodes []string, tk string, fc figureContext) []FigureCheck {
	if f.Unit != "bytes" {
		return nil
	}
	// Only nodes nodetool was asked about: a table outside the corpus
	// (make test's fixtures) has no tablestats, which is no reference,
	// not a reference of 0.
	var asked []string
	for _, n := range nodes {
		if _, ok := fc.obs.Stats[n][tk]; ok {
			asked = append(asked, n)
		}
	}
	if len(asked) == 0 {
		return nil
	}
	node, best := maxOver(asked, func(n string) float64 { return float64(fc.obs.Stats[n][tk].MaxPartitionBytes) })
	// A partition the corpus grows during the phase is read by partmon at
	// some moment of it: the reference is its size from the phase's start
	// to after the report, on the same node.
	begin := fc.obs.StatsBegin
	if begin == nil {
		begin = fc.obs.StatsStart
	}
	start := float64(begin[node][tk].MaxPartitionBytes)
	src, sized := "tablestats compacted_partition_maximum_bytes (largest over the finding's nodes)", *f
	if start > 0 && start < best {
		src = "tablestats compacted_partition_maximum_bytes on the node holding the largest, from the phase's start to after partmon's report (it grew in between)"
	}
	if f.Figures != nil && f.Figures.PartitionBytes > 0 && f.Figures.PartitionBytes != f.Value {
		// The value is a projection (a growing unbucketed series): nodetool
		// can only witness the size measured now.
		sized.Value, sized.NodeValues = f.Figures.PartitionBytes, nil
		src += ", against partmon's measured size, not its projection"
	}
	return []FigureCheck{newRangeCheck(&sized, node, start, best, src, 10)}
}
