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

// The table-metric virtual tables of Cassandra (system_views, 4.0+,
// TableMetricTables.java): one row per table of this node, system tables
// included. Research cql_sources.md §5.2.

// mebibytesSource reads a (keyspace_name, table_name, mebibytes) table.
type mebibytesSource struct {
	name  string // also the system_views table name
	since string // first Cassandra version with the table
	field func(ts *model.TableStats) *int64
	// sumToLoad adds the table sizes up as the node's load (disk_usage).
	sumToLoad bool
}

func (s mebibytesSource) Name() string { return s.name }
func (s mebibytesSource) Scope() Scope { return NodeScope }

func (s mebibytesSource) mergeTable(dst, src *model.TableStats) { *s.field(dst) = *s.field(src) }

func (s mebibytesSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := in.Caps.needVirtual(s.name, s.since); err != nil {
		return 0, err
	}
	var load float64
	stmt := "SELECT keyspace_name, table_name, mebibytes FROM system_views." + s.name
	n, err := cql.SelectAll(ctx, in.Q, stmt, nil, func(r cql.Row) error {
		ks, tbl, err := tableOf(r)
		if err != nil {
			return err
		}
		mib, err := r.Int64("mebibytes")
		if err != nil {
			return err
		}
		if mib < 0 {
			return fmt.Errorf("%s.%s: negative size %d MiB", ks, tbl, mib)
		}
		b := mebibytesToBytes(mib)
		*s.field(out.Node.Stats(ks, tbl)) = b
		load += float64(b)
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading system_views.%s on %s: %w", s.name, in.Address, err)
	}
	if s.sumToLoad {
		out.Node.LoadBytes = load
	}
	return n, nil
}

// mebibytesToBytes converts the tables' ceil(bytes / 2^20). A histogram that
// overflowed reports Long.MAX_VALUE bytes, i.e. 2^43 MiB, which would
// overflow back: it stays at the int64 maximum.
func mebibytesToBytes(mib int64) int64 {
	if mib > math.MaxInt64>>20 {
		return math.MaxInt64
	}
	return mib << 20
}

func tableOf(r cql.Row) (keyspace, table string, err error) {
	if keyspace, err = r.String("keyspace_name"); err != nil {
		return "", "", err
	}
	if table, err = r.String("table_name"); err != nil {
		return "", "", err
	}
	return keyspace, table, nil
}

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

func (s latencySource) mergeTable(dst, src *model.TableStats) { *s.field(dst) = *s.field(src) }

func (s latencySource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := in.Caps.needVirtual(s.name, "4.0"); err != nil {
		return 0, err
	}
	p99Col, err := in.Caps.column(s.name, "p99th_ms", "99th_ms")
	if err != nil {
		return 0, err
	}
	scale := s.msToSeconds(in.Caps)
	at := s.now()
	prefix := s.name + "|" + in.Address + "|"
	seen := map[string]bool{}
	stmt := `SELECT keyspace_name, table_name, count, per_second, "` + p99Col + `" FROM system_views.` + s.name
	n, err := cql.SelectAll(ctx, in.Q, stmt, nil, func(r cql.Row) error {
		ks, tbl, err := tableOf(r)
		if err != nil {
			return err
		}
		var o model.Ops
		if o.Count, err = r.Int64("count"); err != nil {
			return err
		}
		if o.PerSecond, err = r.Float64("per_second"); err != nil {
			return err
		}
		p99, err := r.Float64(p99Col)
		if err != nil {
			return err
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

// distributionSource reads tombstones_per_read or rows_per_read: per local
// read command, how many tombstones or live rows it scanned.
type distributionSource struct {
	name  string
	field func(ts *model.TableStats) *model.Distribution
}

func (s distributionSource) Name() string { return s.name }
func (s distributionSource) Scope() Scope { return NodeScope }

func (s distributionSource) mergeTable(dst, src *model.TableStats) { *s.field(dst) = *s.field(src) }

func (s distributionSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := in.Caps.needVirtual(s.name, "4.0"); err != nil {
		return 0, err
	}
	p50Col, err := in.Caps.column(s.name, "p50th", "50th")
	if err != nil {
		return 0, err
	}
	p99Col, err := in.Caps.column(s.name, "p99th", "99th")
	if err != nil {
		return 0, err
	}
	stmt := `SELECT keyspace_name, table_name, count, "` + p50Col + `", "` + p99Col + `", max FROM system_views.` + s.name
	n, err := cql.SelectAll(ctx, in.Q, stmt, nil, func(r cql.Row) error {
		ks, tbl, err := tableOf(r)
		if err != nil {
			return err
		}
		var d model.Distribution
		if d.Count, err = r.Int64("count"); err != nil {
			return err
		}
		if d.P50, err = r.Float64(p50Col); err != nil {
			return err
		}
		if d.P99, err = r.Float64(p99Col); err != nil {
			return err
		}
		if d.Max, err = r.Float64("max"); err != nil {
			return err
		}
		*s.field(out.Node.Stats(ks, tbl)) = d
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading system_views.%s on %s: %w", s.name, in.Address, err)
	}
	return n, nil
}

// latencyMillisToSeconds is the factor from the latency tables' *_ms
// columns to seconds. Cassandra 4.0 fills them from nanosecond reservoirs
// scaled by 1e-6, i.e. real milliseconds. CASSANDRA-16760 (4.1.0) moved the
// reservoirs to microseconds but kept the 1e-6 scale, so from 4.1 on the
// columns hold seconds despite their name. Measured on Cassandra 5.0.8: a
// p99th_ms of 0.051 where `nodetool tablehistograms` printed a 99% read
// latency of 51012 µs (latency_unit_integration_test.go checks this on every
// run). The values are rounded to three decimals, so the resolution from 4.1
// on is 1 ms. 4.1 is recognised by a table it introduced (gossip_info, in
// the same release as the reservoir change), not by its version string.
func latencyMillisToSeconds(c *Capabilities) float64 {
	if c.VirtualColumns["gossip_info"] != nil {
		return 1
	}
	return 1e-3
}
