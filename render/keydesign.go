package render

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/keyadvice"
)

// KeyDesign writes the key advisor's "Key design" section for one table.
func KeyDesign(w io.Writer, a *keyadvice.Advice, f Format) error {
	switch f {
	case JSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(a)
	case Markdown:
		return keyDesignMarkdown(w, a)
	default:
		return keyDesignText(w, a)
	}
}

func sampleLine(a *keyadvice.Advice) string {
	s := a.Sample
	line := fmt.Sprintf("sampled on %s: %s whole partitions (%s rows) from %d random token ranges, %s of the ring, %s rows read in %d requests at LOCAL_ONE, %s",
		sampledOn(s), format.Count(float64(s.Partitions)), format.Count(float64(s.Rows)), s.Ranges, format.Percent(s.RingShare),
		format.Count(float64(s.RowsRead)), s.Requests, format.Seconds(s.ElapsedSeconds))
	if s.Routing != "" {
		line += "; read on " + s.Routing
	}
	if s.Stopped != "" {
		line += "; stopped: " + s.Stopped
	}
	if s.NodeMaxPartitionBytes > 0 {
		line += fmt.Sprintf("; Cassandra's largest partition of the table on that node: at most %s (max_partition_size)", format.Bytes(float64(s.NodeMaxPartitionBytes)))
	}
	return line
}

// sampledOn names the nodes read: one, or each replica with its requests.
func sampledOn(s keyadvice.Sample) string {
	if len(s.RequestsByNode) <= 1 {
		return s.Node
	}
	nodes := make([]string, 0, len(s.RequestsByNode))
	for n := range s.RequestsByNode {
		nodes = append(nodes, n)
	}
	sort.Strings(nodes)
	for i, n := range nodes {
		nodes[i] = fmt.Sprintf("%s %d", n, s.RequestsByNode[n])
	}
	return fmt.Sprintf("%d replicas (requests: %s)", len(nodes), strings.Join(nodes, ", "))
}

func estimateText(e keyadvice.Estimate) string {
	if !e.Known {
		return e.Why
	}
	return fmt.Sprintf("%s (95 %%: %s to %s) by %s", format.Count(e.Value), format.Count(e.Low), format.Count(e.High), e.Why)
}

func sizesText(s keyadvice.Sizes, unit func(float64) string) string {
	if !s.Known {
		return "unknown (too few sightings of each partition in the sample)"
	}
	p99 := unit(s.P99)
	if !s.P99Decided() {
		p99 = fmt.Sprintf("unknown (the top 1 %% rests on %d sampled partition(s): one draw's figure, not the table's)", s.P99Draws)
	}
	return fmt.Sprintf("p50 %s, p99 %s, largest sampled %s (%s of the table; a rarer larger one can exist)",
		unit(s.P50), p99, unit(s.Max), format.Percent(s.LargestShare))
}

func topText(v []keyadvice.ValueShare) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%s %s", quoteKey(x.Value), format.Percent(x.Share))
	}
	return strings.Join(parts, ", ")
}

// keyLines are a projection's figures as label and text.
func keyLines(p keyadvice.Projection) [][2]string {
	rows := func(v float64) string { return format.Count(v) }
	l := [][2]string{{"method", p.Method}, {"partitions", estimateText(p.Partitions)}}
	if p.Partitions.Known {
		l = append(l, [2]string{"rows", sizesText(p.Rows, rows)}, [2]string{"bytes", sizesText(p.Bytes, format.Bytes)})
		if len(p.TopValues) > 0 {
			l = append(l, [2]string{"most rows", topText(p.TopValues)})
		}
	}
	for _, t := range p.Times {
		l = append(l, [2]string{"time order", fmt.Sprintf("%s follows the writes in %s of %s pairs", t.Column, format.Percent(t.InOrder), format.Count(float64(t.Pairs)))})
	}
	if p.WrittenToday >= 0 {
		l = append(l, [2]string{"today's writes", fmt.Sprintf("land in %s of the sampled partitions", format.Percent(p.WrittenToday))})
	}
	if b := p.Bucket; b != nil {
		width := "none: even a 1-minute bucket is too wide"
		if b.Width > 0 {
			width = bucketWidthText(b.Width)
		}
		l = append(l, [2]string{"time bucket", fmt.Sprintf("%s at %s rows/s (p99 partition): widest bucket under the warnings %s", b.Column, rowsPerSecond(b.RowsPerSecond), width)})
	}
	for _, w := range p.Warnings {
		l = append(l, [2]string{"warning", w})
	}
	return l
}

func bucketWidthText(w time.Duration) string {
	unit := func(n time.Duration, one string) string {
		if n == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %ss", n, one)
	}
	switch {
	case w >= 24*time.Hour && w%(24*time.Hour) == 0:
		return unit(w/(24*time.Hour), "day")
	case w >= time.Hour && w%time.Hour == 0:
		return unit(w/time.Hour, "hour")
	case w >= time.Minute && w%time.Minute == 0:
		return unit(w/time.Minute, "minute")
	}
	return w.String()
}

// rowsPerSecond writes a partition's write rate without a second unit:
// "12", "0.5", "4.6e-05".
func rowsPerSecond(r float64) string {
	if r >= 10 {
		return format.Count(r)
	}
	return strconv.FormatFloat(r, 'g', 2, 64)
}

// KeyDesignSample is the Key design's sample line: where and how the
// advice was measured and what it cost the node.
func KeyDesignSample(a *keyadvice.Advice) string { return sampleLine(a) }

// KeyDesignLines are one key's figures as the text report writes them,
// label and text (the status page shows the same lines).
func KeyDesignLines(p keyadvice.Projection) [][2]string { return keyLines(p) }

func keyName(p keyadvice.Projection) string {
	if p.Current {
		return p.Key + " (current)"
	}
	return p.Key
}

func keyDesignText(w io.Writer, a *keyadvice.Advice) error {
	p := &printer{w: w}
	p.f("Key design: %s.%s\n  %s\n", a.Keyspace, a.Table, sampleLine(a))
	for _, k := range a.Keys {
		p.f("\n  %s\n", keyName(k))
		for _, l := range keyLines(k) {
			p.f("    %-15s %s\n", l[0], l[1])
		}
	}
	return p.err
}

func keyDesignMarkdown(w io.Writer, a *keyadvice.Advice) error {
	p := &printer{w: w}
	p.f("## Key design: %s.%s\n\n%s.\n", mdEscape(a.Keyspace), mdEscape(a.Table), mdEscape(sampleLine(a)))
	for _, k := range a.Keys {
		p.f("\n### `%s`\n\n| | |\n|---|---|\n", keyName(k))
		for _, l := range keyLines(k) {
			p.f("| %s | %s |\n", l[0], mdEscape(l[1]))
		}
	}
	return p.err
}
