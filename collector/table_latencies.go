package collector

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// latencySource reads a local_{read,write,scan}_latency table: the operation
// count since start, Cassandra's five-minute rate and the 99th percentile,
// and derives a rate from the count against the previous read.
type latencySource struct {
	name  string
	field func(ts *model.TableStats) *model.Ops
	rates *rateTracker
	now   func() time.Time
	// msToSeconds converts the *_ms columns. See latencyMillisToSeconds.
	msToSeconds func(c *Capabilities) float64
}

func (s latencySource) Name() string { return s.name }
func (s latencySource) Scope() Scope { return NodeScope }
func (s latencySource) Facts() Facts {
	return Facts{Reads: "system_views." + s.name, Gate: virtualTable(s.name, oldestCassandra),
		Schedule: everyMinute, Grants: []string{ksSystemViews}, Rates: true}
}
func (s latencySource) copyOwnFields(dst, src *model.TableStats) { *s.field(dst) = *s.field(src) }

func (s latencySource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	p99Col, err := in.Caps.column(s.name, "p99th_ms", "99th_ms")
	if err != nil {
		return 0, err
	}
	scale := s.msToSeconds(in.Caps)
	at := s.now()
	prefix := s.name + "|" + in.Address + "|"
	seen := map[string]bool{}
	stmt := `SELECT keyspace_name, table_name, count, per_second, "` + p99Col + `" FROM system_views.` + s.name
	n, err := cql.SelectAllInOnePage(ctx, in.Q, stmt, nil, func(row *cql.Decoder) error {
		ks, tbl := tableOf(row)
		o := model.Ops{Count: row.Int64("count"), PerSecond: row.Float64("per_second")}
		p99 := row.Float64(p99Col)
		if err := row.Err(); err != nil {
			return err // before the rate tracker records a count that was not read
		}
		if o.Count < 0 || o.PerSecond < 0 || p99 < 0 || math.IsNaN(o.PerSecond) || math.IsNaN(p99) {
			return fmt.Errorf("%s.%s: negative or NaN value (count %d, per_second %g, %s %g)", ks, tbl, o.Count, o.PerSecond, p99Col, p99)
		}
		o.P99Seconds = p99 * scale
		key := prefix + model.TableKey(ks, tbl)
		seen[key] = true
		o.Rate = s.rates.rate(key, o.Count, at)
		*s.field(out.Node.Stats(ks, tbl)) = o
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading system_views.%s on %s: %w", s.name, in.Address, err)
	}
	s.rates.forget(func(k string) bool { return !strings.HasPrefix(k, prefix) || seen[k] })
	return n, nil
}

// latencyMillisToSeconds is the factor from the latency tables' *_ms
// columns to seconds. Cassandra 4.0 fills them from nanosecond reservoirs
// scaled by 1e-6, i.e. real milliseconds. CASSANDRA-16760 (4.1.0) moved the
// reservoirs to microseconds but kept the 1e-6 scale, so from 4.1 on the
// columns hold seconds despite their name. Measured on Cassandra 5.0.8: a
// p99th_ms of 0.051 where `nodetool tablehistograms` printed a 99% read
// latency of 51012 µs (TestIntegrationLatencyUnit in integration_test.go
// checks this on every run). The values are rounded to three decimals, so
// the resolution from 4.1 on is 1 ms. 4.1 is recognised by a table it introduced (gossip_info, in
// the same release as the reservoir change), not by its version string.
func latencyMillisToSeconds(c *Capabilities) float64 {
	if c.VirtualColumns["gossip_info"] != nil {
		return 1
	}
	return 1e-3
}
