package collector

import (
	"context"
	"fmt"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// distributionSource reads tombstones_per_read or rows_per_read: per local
// read command, how many tombstones or live rows it scanned.
type distributionSource struct {
	name  string
	field func(ts *model.TableStats) *model.Distribution
}

func (s distributionSource) Name() string                             { return s.name }
func (s distributionSource) Scope() Scope                             { return NodeScope }
func (s distributionSource) copyOwnFields(dst, src *model.TableStats) { *s.field(dst) = *s.field(src) }

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
