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

func (s distributionSource) Name() string { return s.name }
func (s distributionSource) Scope() Scope { return NodeScope }
func (s distributionSource) Facts() Facts {
	return Facts{Reads: "system_views." + s.name, Gate: virtualTable(s.name, oldestCassandra),
		Schedule: everyMinute, Grants: []string{ksSystemViews}}
}
func (s distributionSource) copyOwnFields(dst, src *model.TableStats) { *s.field(dst) = *s.field(src) }

func (s distributionSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	p50Col, err := in.Caps.column(s.name, "p50th", "50th")
	if err != nil {
		return 0, err
	}
	p99Col, err := in.Caps.column(s.name, "p99th", "99th")
	if err != nil {
		return 0, err
	}
	stmt := `SELECT keyspace_name, table_name, count, "` + p50Col + `", "` + p99Col + `", max FROM system_views.` + s.name
	n, err := cql.SelectAllInOnePage(ctx, in.Q, stmt, nil, func(row *cql.Decoder) error {
		ks, tbl := tableOf(row)
		*s.field(out.Node.Stats(ks, tbl)) = model.Distribution{
			Count: row.Int64("count"), P50: row.Float64(p50Col), P99: row.Float64(p99Col), Max: row.Float64("max"),
		}
		return nil
	})
	if err != nil {
		return n, fmt.Errorf("reading system_views.%s on %s: %w", s.name, in.Address, err)
	}
	return n, nil
}
