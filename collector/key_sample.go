package collector

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/collector/internal/cqlname"
	"github.com/partmon/partmon/model"
)

// DefaultSampleLimits are the key sampler's bounds unless the caller sets
// them: 1,000 whole partitions from ranges of at most 10, at most 5,000
// rows a second (a page of 500 every 0.1 s: about what one client reading
// one table at LOCAL_ONE costs one node), at most 300,000 rows and 5 % of
// the ring in all, stopping when its requests' latency triples past 50 ms.
func DefaultSampleLimits() model.SampleLimits {
	return model.SampleLimits{
		RowsPerSecond: 5000, MaxRows: 300000, MaxRingShare: 0.05,
		Partitions: 1000, PerRange: 10, PageRows: 500,
		LatencyFactor: 3, LatencyFloor: 50 * time.Millisecond,
	}
}

// MinSampledPartitions is the fewest whole partitions a sample needs
// before anything is estimated from it.
const MinSampledPartitions = 30

// ErrTooSmall: the table has too few partitions in the ring share the
// sampler may read.
var ErrTooSmall = errors.New("too few partitions to sample")

// SampleKeys reads a bounded sample of keyspace.table's rows for the key
// advisor at LOCAL_ONE (ONE without a local DC), each token range on a
// replica of it in the local DC (the first configured host's DC without
// one; the first host alone when the ring or the keyspace's replication
// cannot be placed): whole partitions after random tokens, paged, paced and bounded by
// lim (zero fields take DefaultSampleLimits'). rowCap bounds the rows read
// of one partition. It never filters and never reads more than
// lim.MaxRingShare of the ring. check, when set, judges the table's
// columns before any row is read; its error is returned as is.
func (c *Collector) SampleKeys(ctx context.Context, keyspace, table string, lim model.SampleLimits, rowCap int, check func([]model.SampleColumn) error) (*model.KeySample, error) {
	if err := cqlname.Check("keyspace", keyspace); err != nil {
		return nil, err
	}
	if err := cqlname.Check("table", table); err != nil {
		return nil, err
	}
	addr, port, err := resolveHost(ctx, c.cfg.Hosts[0], c.cfg.Port)
	if err != nil {
		return nil, fmt.Errorf("resolving %q: %w", c.cfg.Hosts[0], err)
	}
	lim = withSampleDefaults(lim)
	opts := c.session
	opts.PageSize = lim.PageRows
	opts.Consistency = gocql.LocalOne
	if c.cfg.LocalDC == "" {
		opts.Consistency = gocql.One
	}
	node := cql.NewNode(addr, port, &opts, func(context.Context, cql.Querier) (struct{}, error) { return struct{}{}, nil }, c.log)
	defer node.Close()
	q, _, err := node.Querier(ctx)
	if err != nil {
		return nil, fmt.Errorf("cannot reach %s: %w (check --hosts and that the node serves CQL)", node.Endpoint(), err)
	}
	cols, err := sampleColumns(ctx, q, keyspace, table)
	if err != nil {
		return nil, err
	}
	if check != nil {
		if err := check(cols); err != nil {
			return nil, err
		}
	}
	s := &keySampler{q: q, lim: lim, rowCap: max(rowCap, lim.PageRows), now: time.Now, sleep: sleepCtx,
		sample: &model.KeySample{Keyspace: keyspace, Table: table, Node: addr, Columns: cols, Limits: lim}}
	ports := c.pick.configuredPorts(ctx)
	var opened []*cql.Node[struct{}]
	defer func() {
		for _, n := range opened {
			n.Close()
		}
	}()
	routes, err := newSampleRoutes(ctx, q, keyspace, c.cfg.LocalDC)
	if err != nil {
		s.sample.Routing = "the first host only, as its ring or the keyspace's replicas could not be placed: " + err.Error()
	} else {
		routes.log = c.log
		routes.open = func(ctx context.Context, a string) (cql.Querier, error) {
			p, ok := ports[a]
			if !ok {
				p = c.cfg.Port
			}
			n := cql.NewNode(a, p, &opts, func(context.Context, cql.Querier) (struct{}, error) { return struct{}{}, nil }, c.log)
			opened = append(opened, n)
			rq, _, err := n.Querier(ctx)
			return rq, err
		}
		s.routes, s.sample.Nodes = routes, routes.nodes
	}
	s.stmts = sampleStatements(keyspace, table, cols)
	s.sample.NodeMaxPartitionBytes = nodeMaxPartition(ctx, q, keyspace, table)
	if err := s.run(ctx); err != nil {
		return nil, err
	}
	return s.sample, nil
}

// nodeMaxPartition is max_partition_size's figure for the table (4.0+),
// 0 where the node has none.
func nodeMaxPartition(ctx context.Context, q cql.Querier, keyspace, table string) int64 {
	var b int64
	_, err := cql.SelectAll(ctx, q, "SELECT mebibytes FROM system_views.max_partition_size WHERE keyspace_name = ? AND table_name = ?",
		[]any{keyspace, table}, func(d *cql.Decoder) error {
			b = mebibytesToBytes(d.Int64("mebibytes"))
			return nil
		})
	if err != nil {
		return 0 // 3.x and ScyllaDB have no such table: the sample stands alone
	}
	return b
}

func withSampleDefaults(l model.SampleLimits) model.SampleLimits {
	d := DefaultSampleLimits()
	pick := func(v *float64, def float64) {
		if *v <= 0 {
			*v = def
		}
	}
	pick(&l.RowsPerSecond, d.RowsPerSecond)
	pick(&l.MaxRingShare, d.MaxRingShare)
	pick(&l.LatencyFactor, d.LatencyFactor)
	l.MaxRingShare = math.Min(l.MaxRingShare, 1)
	if l.MaxRows <= 0 {
		l.MaxRows = d.MaxRows
	}
	if l.Partitions <= 0 {
		l.Partitions = d.Partitions
	}
	if l.PerRange <= 0 {
		l.PerRange = d.PerRange
	}
	if l.PageRows <= 0 {
		l.PageRows = d.PageRows
	}
	if l.LatencyFloor <= 0 {
		l.LatencyFloor = d.LatencyFloor
	}
	return l
}

// sampleColumns are the table's columns: partition key, clustering, then
// the rest, each group in its order.
func sampleColumns(ctx context.Context, q cql.Querier, keyspace, table string) ([]model.SampleColumn, error) {
	var cols []model.SampleColumn
	_, err := cql.SelectAll(ctx, q, "SELECT column_name, kind, position, type, clustering_order FROM system_schema.columns WHERE keyspace_name = ? AND table_name = ?",
		[]any{keyspace, table}, func(d *cql.Decoder) error {
			t := d.String("type")
			cols = append(cols, model.SampleColumn{Name: d.String("column_name"), Kind: d.String("kind"),
				Position: int(d.Int64("position")), Type: t, Time: t == "timestamp" || t == "date",
				Desc: d.String("clustering_order") == "desc"})
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("reading the columns of %s.%s: %w", keyspace, table, err)
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("table %s.%s does not exist (no columns in system_schema.columns)", keyspace, table)
	}
	rank := map[string]int{model.ColumnPartitionKey: 0, model.ColumnClustering: 1, model.ColumnStatic: 2, model.ColumnRegular: 3}
	sort.SliceStable(cols, func(i, j int) bool {
		a, b := cols[i], cols[j]
		if rank[a.Kind] != rank[b.Kind] {
			return rank[a.Kind] < rank[b.Kind]
		}
		if a.Position != b.Position {
			return a.Position < b.Position
		}
		return a.Name < b.Name
	})
	return cols, nil
}

// sampleStmts are the two statements the sampler sends: the rows after a
// token, and the rest of one partition after a clustering.
type sampleStmts struct {
	afterToken, inPartition string
	pk, ck                  int // columns of the partition key and clustering
	writeTimes              int // WRITETIME columns after the table's
}

// Aliases of the sampler's computed columns.
const sampleTokenAlias = "partmon_token"

func writeTimeAlias(i int) string { return fmt.Sprintf("partmon_wt%d", i) }

func quoteName(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func sampleStatements(keyspace, table string, cols []model.SampleColumn) sampleStmts {
	var st sampleStmts
	var pk, ck, sel, wt []string
	for _, c := range cols {
		n := quoteName(c.Name)
		sel = append(sel, n)
		switch c.Kind {
		case model.ColumnPartitionKey:
			pk = append(pk, n)
		case model.ColumnClustering:
			ck = append(ck, n)
		case model.ColumnRegular:
			if primitiveType(c.Type) {
				wt = append(wt, fmt.Sprintf("WRITETIME(%s) AS %s", n, writeTimeAlias(len(wt))))
			}
		}
	}
	st.pk, st.ck, st.writeTimes = len(pk), len(ck), len(wt)
	tok := "token(" + strings.Join(pk, ", ") + ")"
	head := "SELECT " + strings.Join(slices.Concat([]string{tok + " AS " + sampleTokenAlias}, sel, wt), ", ") + " FROM " + quoteName(keyspace) + "." + quoteName(table)
	st.afterToken = head + " WHERE " + tok + " > ? AND " + tok + " <= ? LIMIT ?"
	// The rest of a partition: the rows after the last one read, in
	// clustering order. A tuple relation compares in each type's natural
	// order, not the clustering order, so "after" is > where every
	// clustering column ascends and < where every one descends; with mixed
	// orders no single relation says it, and a partition cut by its first
	// page is kept as a truncated one.
	if op, ok := afterOp(cols); len(ck) > 0 && ok {
		where := strings.Join(pk, " = ? AND ") + " = ? AND (" + strings.Join(ck, ", ") + ") " + op + " (" + strings.TrimSuffix(strings.Repeat("?, ", len(ck)), ", ") + ")"
		st.inPartition = head + " WHERE " + where + " LIMIT ?"
	}
	return st
}

// afterOp is the tuple relation that reads a partition's rows after a
// clustering, and whether one relation can (the clustering columns all in
// one order).
func afterOp(cols []model.SampleColumn) (string, bool) {
	asc, desc := 0, 0
	for _, c := range cols {
		if c.Kind != model.ColumnClustering {
			continue
		}
		if c.Desc {
			desc++
		} else {
			asc++
		}
	}
	switch {
	case desc == 0:
		return ">", true
	case asc == 0:
		return "<", true
	}
	return "", false
}

// primitiveTypes are CQL's native types a key column may have (duration
// may not be one).
var primitiveTypes = map[string]bool{"ascii": true, "bigint": true, "blob": true, "boolean": true, "date": true,
	"decimal": true, "double": true, "float": true, "inet": true, "int": true, "smallint": true, "text": true,
	"time": true, "timestamp": true, "timeuuid": true, "tinyint": true, "uuid": true, "varchar": true, "varint": true}

// primitiveType: a native CQL type (not a collection, tuple, UDT, frozen,
// counter or duration).
func primitiveType(t string) bool { return primitiveTypes[t] }

// PrimitiveType says whether a CQL type can be one column of a key the
// advisor builds (not a collection, tuple, UDT or frozen value).
func PrimitiveType(t string) bool { return primitiveType(t) }

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// randomToken is a token uniform over Murmur3's range.
func randomToken() int64 { return int64(rand.Uint64()) }
