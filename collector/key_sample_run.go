package collector

import (
	"context"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// keySampler takes one KeySample.
type keySampler struct {
	q      cql.Querier // the current range's replica
	routes *sampleRoutes
	lim    model.SampleLimits
	rowCap int
	stmts  sampleStmts
	sample *model.KeySample
	now    func() time.Time
	sleep  func(context.Context, time.Duration) error
	start  time.Time
	lat    []time.Duration
}

// ringSize is the number of Murmur3 tokens, 2^64.
const ringSize = 18446744073709551616.0

// latencyWindow is how many requests' latencies make a median.
const latencyWindow = 5

func (s *keySampler) run(ctx context.Context) error {
	s.start = s.now()
	s.sample.Taken = s.start
	for len(s.sample.Partitions) < s.lim.Partitions && s.sample.Stopped == "" {
		if s.sample.Cost.RingShare >= s.lim.MaxRingShare*0.999 {
			s.sample.Stopped = stopRingShare
			break
		}
		if s.sample.Cost.RowsRead >= s.lim.MaxRows {
			s.sample.Stopped = stopRows
			break
		}
		if err := s.readRange(ctx, s.freshStart()); err != nil {
			return err
		}
	}
	c := &s.sample.Cost
	c.Elapsed = s.now().Sub(s.start)
	n := len(s.sample.Partitions)
	switch {
	case n >= MinSampledPartitions:
		return nil
	case c.RowsRead == 0:
		return fmt.Errorf("table %s.%s has no rows in the %.1f %% of the ring read: it is empty or nearly so, nothing to advise on",
			s.sample.Keyspace, s.sample.Table, 100*c.RingShare)
	case s.sample.Stopped != "" && s.sample.Stopped != stopRingShare:
		return fmt.Errorf("the sampler stopped (%s) after %d whole partitions, fewer than the %d it needs", s.sample.Stopped, n, MinSampledPartitions)
	}
	return fmt.Errorf("%w: %s.%s had %d whole partitions in the %.1f %% of the ring the sampler may read (about %.0f in all); "+
		"it needs %d: raise the ring share, or judge so small a table by reading it whole", ErrTooSmall, s.sample.Keyspace, s.sample.Table,
		n, 100*c.RingShare, float64(n)/math.Max(c.RingShare, 1e-12), MinSampledPartitions)
}

// Reasons the sampler stops before its partition target.
const (
	stopRingShare = "ring share limit reached"
	stopRows      = "rows limit reached"
)

// freshStart is a random token outside every range already read.
func (s *keySampler) freshStart() int64 {
	for {
		t := randomToken()
		if !slices.ContainsFunc(s.sample.Ranges, func(r model.SampledRange) bool { return t >= r.Start && t <= r.End }) {
			return t
		}
	}
}

// nextStart bounds a range from start: the first range read after it
// begins (so no partition is taken twice), the ring's last token, or the
// share of the ring left to read, whichever comes first.
func (s *keySampler) nextStart(start int64) int64 {
	b := int64(math.MaxInt64)
	if left := (s.lim.MaxRingShare - s.sample.Cost.RingShare) * ringSize; left < float64(uint64(b)-uint64(start)) {
		b = int64(uint64(start) + uint64(math.Max(left, 1)))
	}
	for _, r := range s.sample.Ranges {
		if r.Start > start && r.Start < b {
			b = r.Start
		}
	}
	return b
}

func share(start, end int64) float64 { return float64(uint64(end)-uint64(start)) / ringSize }

// readRange takes up to PerRange whole partitions after start.
func (s *keySampler) readRange(ctx context.Context, start int64) error {
	r := model.SampledRange{Start: start}
	defer func() {
		s.sample.Ranges = append(s.sample.Ranges, r)
		s.sample.Cost.RingShare += share(r.Start, r.End)
	}()
	if s.routes != nil {
		s.q = s.routes.pick(ctx, start)
	}
	cur, bound := start, s.nextStart(start)
	for {
		n := s.pageRows()
		if n == 0 {
			// The rows limit is reached with no partition seen after cur:
			// the range ends at its last partition, holding only its gaps.
			s.sample.Stopped = stopRows
			r.End, r.Cut = cur, true
			return nil
		}
		rows, err := s.page(ctx, s.stmts.afterToken, []any{cur, bound, n})
		if err != nil {
			return err
		}
		if len(rows) == 0 {
			r.End, r.Cut = bound, true
			return nil
		}
		groups := byToken(rows)
		for i, g := range groups {
			if s.stopBefore(r, g[0].token) {
				r.End = g[0].token
				return nil
			}
			more := i == len(groups)-1 && len(rows) == n
			p, err := s.partition(ctx, g, more)
			if err != nil {
				return err
			}
			s.sample.Partitions = append(s.sample.Partitions, p)
			r.Partitions++
			cur = g[0].token
		}
	}
}

// pageRows is the LIMIT of the next request: a page, or the rows left
// under MaxRows when fewer, so the rows limit is a hard bound.
func (s *keySampler) pageRows() int {
	return int(max(0, min(int64(s.lim.PageRows), s.lim.MaxRows-s.sample.Cost.RowsRead)))
}

// stopBefore: the partition at tok ends range r rather than joining it.
func (s *keySampler) stopBefore(r model.SampledRange, tok int64) bool {
	switch {
	case s.sample.Stopped != "", r.Partitions >= s.lim.PerRange, len(s.sample.Partitions) >= s.lim.Partitions:
		return true
	case s.sample.Cost.RingShare+share(r.Start, tok) > s.lim.MaxRingShare:
		s.sample.Stopped = stopRingShare
		return true
	case s.sample.Cost.RowsRead >= s.lim.MaxRows:
		s.sample.Stopped = stopRows
		return true
	}
	return false
}

// partition reads the rest of a partition whose first rows are g when the
// page may have cut it (more), up to rowCap rows.
func (s *keySampler) partition(ctx context.Context, g []rawRow, more bool) (model.SampledPartition, error) {
	for more && s.stmts.inPartition != "" {
		if len(g) >= s.rowCap || s.sample.Cost.RowsRead >= s.lim.MaxRows {
			if s.sample.Cost.RowsRead >= s.lim.MaxRows {
				s.sample.Stopped = stopRows
			}
			return s.toPartition(g, true), nil
		}
		last := g[len(g)-1].vals
		n := s.pageRows()
		args := slices.Concat(last[:s.stmts.pk], last[s.stmts.pk:s.stmts.pk+s.stmts.ck], []any{n})
		rows, err := s.page(ctx, s.stmts.inPartition, args)
		if err != nil {
			return model.SampledPartition{}, err
		}
		g = append(g, rows...)
		more = len(rows) == n
	}
	// more with no statement to page on (mixed clustering orders): the
	// partition goes on past what was read.
	return s.toPartition(g, more), nil
}

func (s *keySampler) toPartition(g []rawRow, truncated bool) model.SampledPartition {
	p := model.SampledPartition{Token: g[0].token, Truncated: truncated, Rows: make([]model.SampledRow, len(g))}
	for i, r := range g {
		row := model.SampledRow{Values: make([]*string, len(r.vals))}
		for j, v := range r.vals {
			if v != nil {
				t := valueText(v, s.sample.Columns[j].Type)
				row.Values[j] = &t
				row.Bytes += valueBytes(v, s.sample.Columns[j].Type)
			}
		}
		if r.wt > 0 {
			row.WriteTime = time.UnixMicro(r.wt).UTC()
		}
		p.Rows[i] = row
	}
	return p
}

// rawRow is one row as the driver gave it.
type rawRow struct {
	token int64
	vals  []any
	wt    int64 // newest WRITETIME of its regular cells, µs
}

func byToken(rows []rawRow) [][]rawRow {
	var out [][]rawRow
	for i, r := range rows {
		if i == 0 || r.token != rows[i-1].token {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], r)
	}
	return out
}

// page sends one request, paced to RowsPerSecond, and watches its latency.
func (s *keySampler) page(ctx context.Context, stmt string, args []any) ([]rawRow, error) {
	t0 := s.now()
	var rows []rawRow
	err := s.q.Select(ctx, stmt, args, func(r cql.Row) error {
		rows = append(rows, s.raw(r))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("sampling %s.%s on %s: %w", s.sample.Keyspace, s.sample.Table, s.q.Address(), err)
	}
	c := &s.sample.Cost
	c.Requests++
	if c.RequestsByNode == nil {
		c.RequestsByNode = map[string]int{}
	}
	c.RequestsByNode[s.q.Address()]++
	c.RowsRead += int64(len(rows))
	s.watchLatency(s.now().Sub(t0))
	due := s.start.Add(time.Duration(float64(c.RowsRead) / s.lim.RowsPerSecond * float64(time.Second)))
	if err := s.sleep(ctx, due.Sub(s.now())); err != nil {
		return nil, err
	}
	return rows, nil
}

func (s *keySampler) raw(r cql.Row) rawRow {
	cols := s.sample.Columns
	out := rawRow{vals: make([]any, len(cols))}
	out.token, _ = r[sampleTokenAlias].(int64)
	for i, c := range cols {
		out.vals[i] = r[c.Name]
	}
	for i := range s.stmts.writeTimes {
		if w, ok := r[writeTimeAlias(i)].(int64); ok && w > out.wt {
			out.wt = w
		}
	}
	return out
}

func (s *keySampler) watchLatency(d time.Duration) {
	s.lat = append(s.lat, d)
	c := &s.sample.Cost
	n := len(s.lat)
	c.BaselineLatency = median(s.lat[:min(n, latencyWindow)])
	c.LastLatency = median(s.lat[max(0, n-latencyWindow):])
	limit := max(time.Duration(s.lim.LatencyFactor*float64(c.BaselineLatency)), s.lim.LatencyFloor)
	if n >= 2*latencyWindow && c.LastLatency > limit {
		s.sample.Stopped = fmt.Sprintf("the node's read latency rose: median %v over the last %d requests, %v over the first",
			c.LastLatency.Round(time.Millisecond), latencyWindow, c.BaselineLatency.Round(time.Millisecond))
	}
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// valueText is a value as the advisor compares it: time columns as RFC 3339.
func valueText(v any, typ string) string {
	switch x := v.(type) {
	case string:
		return x
	case time.Time:
		if typ == "date" {
			return x.UTC().Format(time.DateOnly)
		}
		return x.UTC().Format(time.RFC3339Nano)
	case []byte:
		return "0x" + hex.EncodeToString(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case *big.Int:
		return x.String()
	}
	return fmt.Sprint(v)
}

// valueBytes is a value's encoded length in CQL's native protocol.
func valueBytes(v any, typ string) int64 {
	if typ == "uuid" || typ == "timeuuid" {
		return 16
	}
	switch x := v.(type) {
	case string:
		return int64(len(x))
	case []byte:
		return int64(len(x))
	case int8, bool:
		return 1
	case int16:
		return 2
	case int, int32, float32:
		return 4
	case int64, float64, time.Time, time.Duration:
		return 8
	}
	return int64(len(fmt.Sprint(v)))
}
