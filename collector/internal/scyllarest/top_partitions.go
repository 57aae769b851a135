package scyllarest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/partmon/partmon/collector/internal/cqlname"
	"github.com/partmon/partmon/model"
)

// TopPartitions samples the node's reads and writes for duration and returns,
// per table and operation, the listSize keys with the highest counts
// (GET /storage_service/toppartitions/). The call blocks for duration, so ctx
// must allow more than that. An empty tables list samples every table.
//
// Count is the number of local read or write operations on that key on this
// node during the window; Error is the space-saving overcount bound.
// ScyllaDB's read_cardinality / write_cardinality are the number of distinct
// keys its summary holds (at most the capacity), not an operation count, so
// they are not used as Total. Instead the whole summary is requested
// (list_size = capacity) and Total is the sum of the counts of every key the
// summary kept for that table: a space-saving summary keeps Σcount equal to
// the operations it saw, so this is the table's sampled operation count. It is
// exact when every error is 0; after evictions a key inherits the evicted
// key's count, possibly from another table, so the split between tables is
// approximate. Total is 0 when the summary came back incomplete.
func (r *Client) TopPartitions(ctx context.Context, tables []string, duration time.Duration, listSize int) ([]model.HotPartition, error) {
	if duration < time.Millisecond {
		return nil, fmt.Errorf("toppartitions duration %s is shorter than 1ms", duration)
	}
	if listSize < 1 {
		return nil, fmt.Errorf("toppartitions list size %d must be positive", listSize)
	}
	if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) <= duration {
		return nil, fmt.Errorf("toppartitions: context deadline is %s away, not enough for a %s sample: %w",
			time.Until(deadline).Round(time.Millisecond), duration, context.DeadlineExceeded)
	}
	filters := make([]string, 0, len(tables))
	for _, t := range tables {
		ks, cf, err := cqlname.SplitTable(t)
		if err != nil {
			return nil, fmt.Errorf("toppartitions: %w", err)
		}
		filters = append(filters, ks+":"+cf)
	}
	capacity := max(r.Capacity, shardCapacity, listSize)
	q := url.Values{}
	q.Set("duration", strconv.FormatInt(duration.Milliseconds(), 10))
	q.Set("capacity", strconv.Itoa(capacity))
	q.Set("list_size", strconv.Itoa(capacity))
	if len(filters) > 0 {
		q.Set("table_filters", strings.Join(filters, ","))
	}
	body, err := r.get(ctx, "/storage_service/toppartitions/", q)
	if err != nil {
		return nil, err
	}
	hot, err := parseTopPartitions(body, duration, listSize)
	if err != nil {
		return nil, fmt.Errorf("parsing toppartitions from %s: %w", r.baseURL, err)
	}
	return hot, nil
}

// topPartitionsResponse is column_family.json's toppartitions_query_results.
// Seastar leaves an empty list out of the JSON entirely, so a missing read or
// write list means "nothing sampled"; the cardinalities are always present.
type topPartitionsResponse struct {
	ReadCardinality  *int64              `json:"read_cardinality"`
	Read             []topPartitionEntry `json:"read"`
	WriteCardinality *int64              `json:"write_cardinality"`
	Write            []topPartitionEntry `json:"write"`
}

// topPartitionEntry is column_family.json's toppartitions_record.
type topPartitionEntry struct {
	Partition *string `json:"partition"`
	Count     *int64  `json:"count"`
	Error     *int64  `json:"error"`
}

func parseTopPartitions(body []byte, window time.Duration, listSize int) ([]model.HotPartition, error) {
	var resp topPartitionsResponse
	if err := decodeStrict(body, &resp); err != nil {
		return nil, err
	}
	if resp.ReadCardinality == nil || resp.WriteCardinality == nil {
		return nil, errors.New("not a toppartitions answer: read_cardinality or write_cardinality missing")
	}
	var out []model.HotPartition
	for _, op := range []struct {
		name        string
		cardinality int64
		entries     []topPartitionEntry
	}{
		{"read", *resp.ReadCardinality, resp.Read},
		{"write", *resp.WriteCardinality, resp.Write},
	} {
		if op.cardinality < 0 {
			return nil, fmt.Errorf("negative %s_cardinality %d", op.name, op.cardinality)
		}
		hot, err := topPartitionsOfOp(op.name, op.entries, op.cardinality, window, listSize)
		if err != nil {
			return nil, err
		}
		out = append(out, hot...)
	}
	return out, nil
}

// topPartitionsOfOp converts one operation's entries, adds per-table totals
// and keeps the listSize highest counts per table.
func topPartitionsOfOp(op string, entries []topPartitionEntry, cardinality int64, window time.Duration, listSize int) ([]model.HotPartition, error) {
	// The entries are the top of a summary holding cardinality keys.
	if int64(len(entries)) > cardinality {
		return nil, fmt.Errorf("%s lists %d keys but its cardinality is %d", op, len(entries), cardinality)
	}
	complete := int64(len(entries)) == cardinality
	totals := map[string]int64{}
	hot := make([]model.HotPartition, 0, len(entries))
	for i, e := range entries {
		if e.Partition == nil || e.Count == nil || e.Error == nil {
			return nil, fmt.Errorf("%s entry %d lacks partition, count or error", op, i)
		}
		if *e.Count < 0 || *e.Error < 0 {
			return nil, fmt.Errorf("%s entry %d has a negative count %d or error %d", op, i, *e.Count, *e.Error)
		}
		ks, table, key, err := splitScyllaPartition(*e.Partition)
		if err != nil {
			return nil, fmt.Errorf("%s entry %d: %w", op, i, err)
		}
		tk := model.TableKey(ks, table)
		if totals[tk] > math.MaxInt64-*e.Count {
			return nil, fmt.Errorf("%s counts of %s overflow int64", op, tk)
		}
		totals[tk] += *e.Count
		hot = append(hot, model.HotPartition{
			Keyspace: ks, Table: table, Key: key, Op: op,
			Count: *e.Count, Error: *e.Error,
			Window: window.Seconds(), Source: "rest",
		})
	}
	for i := range hot {
		if complete {
			hot[i].Total = totals[model.TableKey(hot[i].Keyspace, hot[i].Table)]
		}
	}
	return keepTopPerTable(hot, listSize), nil
}

// keepTopPerTable orders hot keys by table, then count (highest first), then
// key, and keeps at most n per table and operation.
func keepTopPerTable(hot []model.HotPartition, n int) []model.HotPartition {
	sort.SliceStable(hot, func(i, j int) bool {
		a, b := hot[i], hot[j]
		if a.Keyspace != b.Keyspace {
			return a.Keyspace < b.Keyspace
		}
		if a.Table != b.Table {
			return a.Table < b.Table
		}
		if a.Op != b.Op {
			return a.Op < b.Op
		}
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.Key < b.Key
	})
	out := hot[:0]
	seen := map[string]int{}
	for _, h := range hot {
		id := h.Op + " " + model.TableKey(h.Keyspace, h.Table)
		if seen[id] < n {
			out = append(out, h)
		}
		seen[id]++
	}
	return out
}

// splitScyllaPartition splits "(ks:cf) key" as run_toppartitions_query in
// api/storage_service.cc writes it. Keyspace and table names cannot hold
// ")" or ":", so the first ") " ends the prefix and the key is the rest
// (composite keys are "a:b", non-UTF-8 ones "<non-utf8-key>").
func splitScyllaPartition(p string) (keyspace, table, key string, err error) {
	end := strings.Index(p, ") ")
	if !strings.HasPrefix(p, "(") || end < 0 {
		return "", "", "", fmt.Errorf("the partition (%d bytes, not quoted: it holds a key) lacks the (keyspace:table) prefix", len(p))
	}
	keyspace, table, ok := strings.Cut(p[1:end], ":")
	if !ok || cqlname.Check("keyspace", keyspace) != nil || cqlname.Check("table", table) != nil {
		return "", "", "", fmt.Errorf("the partition (%d bytes, not quoted: it holds a key) has a malformed (keyspace:table) prefix", len(p))
	}
	return keyspace, table, p[end+2:], nil
}
