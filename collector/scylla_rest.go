package collector

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/partmon/partmon/model"
	"io"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// ScyllaREST reads one ScyllaDB node's REST API (port 10000, bound to
// 127.0.0.1 by the shipped scylla.yaml, so a sidecar is the natural caller).
// Every answer describes only the node asked. Response shapes follow
// scylladb/scylladb api/api-doc/*.json and api/*.cc at tag scylla-2025.1.14
// (unchanged in 6.2.3 and 2026.2.5); collector/testdata/scylla/README.md
// names the exact functions.
type ScyllaREST struct {
	baseURL string
	hc      *http.Client

	// MaxBodyBytes bounds every response body; a larger one is an error.
	MaxBodyBytes int64
	// Capacity is the toppartitions stream-summary size (ScyllaDB's
	// default and per-shard size is 256). TopPartitions never asks for less
	// than max(Capacity, 256, listSize).
	Capacity int
}

const (
	defaultScyllaMaxBody  = 8 << 20
	scyllaShardCapacity   = 256 // utils/top_k.hh space_saving_top_k default, used per shard
	scyllaErrorExcerptLen = 512
)

// NewScyllaREST returns a client for the node at baseURL, e.g.
// "http://127.0.0.1:10000". A nil hc uses a client without its own timeout:
// the caller's context bounds each call.
func NewScyllaREST(baseURL string, hc *http.Client) *ScyllaREST {
	if hc == nil {
		hc = &http.Client{}
	}
	return &ScyllaREST{
		baseURL:      strings.TrimRight(baseURL, "/"),
		hc:           hc,
		MaxBodyBytes: defaultScyllaMaxBody,
		Capacity:     scyllaShardCapacity,
	}
}

// checkName accepts what CQL allows as a keyspace or table name in both
// Cassandra and ScyllaDB (letters, digits, underscore; at most 222 bytes);
// it also keeps names from altering a URL or a command line.
func checkName(kind, name string) error {
	ok := name != "" && len(name) <= 222
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if !ok {
		return fmt.Errorf("invalid %s name %q", kind, truncate(name, 120))
	}
	return nil
}

// splitTableName splits "ks.table" and checks both halves.
func splitTableName(qualified string) (keyspace, table string, err error) {
	keyspace, table, ok := strings.Cut(qualified, ".")
	if !ok {
		return "", "", fmt.Errorf("table %q is not of the form keyspace.table", qualified)
	}
	if err := checkName("keyspace", keyspace); err != nil {
		return "", "", err
	}
	if err := checkName("table", table); err != nil {
		return "", "", err
	}
	return keyspace, table, nil
}

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
func (r *ScyllaREST) TopPartitions(ctx context.Context, tables []string, duration time.Duration, listSize int) ([]model.HotPartition, error) {
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
		ks, cf, err := splitTableName(t)
		if err != nil {
			return nil, fmt.Errorf("toppartitions: %w", err)
		}
		filters = append(filters, ks+":"+cf)
	}
	capacity := max(r.Capacity, scyllaShardCapacity, listSize)
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

// SizeHistogram returns the node's partition size histogram for one table,
// merged over its sstables (memtables are not in it)
// (GET /column_family/metrics/estimated_row_size_histogram/{ks:cf}; "row"
// means partition there).
func (r *ScyllaREST) SizeHistogram(ctx context.Context, keyspace, table string) (Histogram, error) {
	path, err := tablePath("/column_family/metrics/estimated_row_size_histogram/", keyspace, table)
	if err != nil {
		return Histogram{}, err
	}
	body, err := r.get(ctx, path, nil)
	if err != nil {
		return Histogram{}, err
	}
	h, err := parseHistogram(body)
	if err != nil {
		return Histogram{}, fmt.Errorf("parsing size histogram of %s.%s from %s: %w", keyspace, table, r.baseURL, err)
	}
	return h, nil
}

// MaxPartitionSize returns the largest partition, in bytes, of the table's
// sstables on this node (GET /column_family/metrics/max_row_size/{ks:cf}).
func (r *ScyllaREST) MaxPartitionSize(ctx context.Context, keyspace, table string) (int64, error) {
	path, err := tablePath("/column_family/metrics/max_row_size/", keyspace, table)
	if err != nil {
		return 0, err
	}
	body, err := r.get(ctx, path, nil)
	if err != nil {
		return 0, err
	}
	n, err := parseLong(body)
	if err != nil {
		return 0, fmt.Errorf("parsing max partition size of %s.%s from %s: %w", keyspace, table, r.baseURL, err)
	}
	return n, nil
}

// Ownership returns each node's effective ownership of a vnode keyspace as a
// fraction 0..1, keyed by the node's address, as nodetool status shows it
// (GET /storage_service/ownership/{keyspace}). ScyllaDB refuses a tablet
// keyspace here; use TableOwnership for those.
func (r *ScyllaREST) Ownership(ctx context.Context, keyspace string) (map[string]float64, error) {
	return r.ownership(ctx, keyspace, "")
}

// TableOwnership is Ownership for one table, which tablet keyspaces require
// (the cf query parameter).
func (r *ScyllaREST) TableOwnership(ctx context.Context, keyspace, table string) (map[string]float64, error) {
	if err := checkName("table", table); err != nil {
		return nil, err
	}
	return r.ownership(ctx, keyspace, table)
}

func (r *ScyllaREST) ownership(ctx context.Context, keyspace, table string) (map[string]float64, error) {
	if err := checkName("keyspace", keyspace); err != nil {
		return nil, err
	}
	var q url.Values
	if table != "" {
		q = url.Values{"cf": {table}}
	}
	body, err := r.get(ctx, "/storage_service/ownership/"+keyspace, q)
	if err != nil {
		return nil, err
	}
	own, err := parseOwnership(body)
	if err != nil {
		return nil, fmt.Errorf("parsing ownership of %s from %s: %w", keyspace, r.baseURL, err)
	}
	return own, nil
}

func tablePath(prefix, keyspace, table string) (string, error) {
	if err := checkName("keyspace", keyspace); err != nil {
		return "", err
	}
	if err := checkName("table", table); err != nil {
		return "", err
	}
	return prefix + keyspace + ":" + table, nil
}

// get performs one GET and returns the body of a 2xx answer.
func (r *ScyllaREST) get(ctx context.Context, path string, q url.Values) ([]byte, error) {
	u := r.baseURL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("building request GET %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := r.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()

	limit := r.MaxBodyBytes
	if limit <= 0 {
		limit = defaultScyllaMaxBody
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading GET %s (HTTP %d, %d bytes so far): %w", u, resp.StatusCode, len(body), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("GET %s: HTTP %d: %s", u, resp.StatusCode, errorExcerpt(body))
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("GET %s: response larger than %d bytes", u, limit)
	}
	return body, nil
}

// errorExcerpt gives the message of a seastar JSON error
// ({"message": "...", "code": N}, seastar http/exception.hh json_exception),
// or the start of any other body.
func errorExcerpt(body []byte) string {
	var e struct {
		Message *string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message != nil {
		return truncate(*e.Message, scyllaErrorExcerptLen)
	}
	s := strings.TrimSpace(string(body))
	if s == "" {
		return "(empty body)"
	}
	return strconv.Quote(truncate(s, scyllaErrorExcerptLen))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// decodeStrict decodes exactly one JSON value from body into v, with numbers
// kept exact, and rejects trailing data.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty body")
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("truncated JSON: %w", err)
		}
		return fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("invalid JSON: trailing data after the value")
	}
	return nil
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
			return nil, fmt.Errorf("%s entry %d (%q) has a negative count %d or error %d", op, i, *e.Partition, *e.Count, *e.Error)
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
		return "", "", "", fmt.Errorf("partition %q lacks the (keyspace:table) prefix", truncate(p, 120))
	}
	keyspace, table, ok := strings.Cut(p[1:end], ":")
	if !ok || checkName("keyspace", keyspace) != nil || checkName("table", table) != nil {
		return "", "", "", fmt.Errorf("partition %q has a malformed (keyspace:table) prefix", truncate(p, 120))
	}
	return keyspace, table, p[end+2:], nil
}

// Histogram is ScyllaDB's utils::estimated_histogram as the REST API sends it
// (api-doc/utils.json estimated_histogram). Bucket i counts values in
// (Offsets[i-1], Offsets[i]]; the last bucket counts values above the last
// offset (overflow), so len(Buckets) == len(Offsets)+1. For partition sizes
// the values are bytes and ScyllaDB uses 150 offsets, 1, 2, 3, ... growing by
// 1.2 each step.
type Histogram struct {
	Offsets []int64 `json:"bucket_offsets"`
	Buckets []int64 `json:"buckets"`
}

func parseHistogram(body []byte) (Histogram, error) {
	var raw struct {
		Offsets []json.Number `json:"bucket_offsets"`
		Buckets []json.Number `json:"buckets"`
	}
	if err := decodeStrict(body, &raw); err != nil {
		return Histogram{}, err
	}
	if raw.Buckets == nil {
		return Histogram{}, errors.New("not a histogram: buckets missing")
	}
	// An empty histogram is {"buckets": [0]}: seastar omits the empty offsets list.
	if len(raw.Buckets) != len(raw.Offsets)+1 {
		return Histogram{}, fmt.Errorf("histogram has %d buckets for %d offsets, want offsets+1", len(raw.Buckets), len(raw.Offsets))
	}
	h := Histogram{Offsets: make([]int64, len(raw.Offsets)), Buckets: make([]int64, len(raw.Buckets))}
	for i, n := range raw.Offsets {
		v, err := n.Int64()
		if err != nil {
			return Histogram{}, fmt.Errorf("bucket offset %d: %w", i, err)
		}
		if v < 0 || (i > 0 && v <= h.Offsets[i-1]) {
			return Histogram{}, fmt.Errorf("bucket offset %d (%d) is negative or not above the previous one", i, v)
		}
		h.Offsets[i] = v
	}
	var total int64
	for i, n := range raw.Buckets {
		v, err := n.Int64()
		if err != nil {
			return Histogram{}, fmt.Errorf("bucket %d: %w", i, err)
		}
		if v < 0 {
			return Histogram{}, fmt.Errorf("bucket %d has a negative count %d", i, v)
		}
		if total > math.MaxInt64-v {
			return Histogram{}, errors.New("histogram count overflows int64")
		}
		total += v
		h.Buckets[i] = v
	}
	return h, nil
}

// Count is the number of values (partitions, for a size histogram).
func (h Histogram) Count() int64 {
	var n int64
	for _, b := range h.Buckets {
		n += b
	}
	return n
}

// Overflowed says whether some value was above the last offset.
func (h Histogram) Overflowed() bool {
	return len(h.Buckets) > 0 && h.Buckets[len(h.Buckets)-1] > 0
}

// Max is the upper bound of the highest non-empty bucket, math.MaxInt64 if
// the histogram overflowed, 0 if it is empty (as ScyllaDB's max()).
func (h Histogram) Max() int64 {
	if h.Overflowed() {
		return math.MaxInt64
	}
	for i := len(h.Offsets) - 1; i >= 0; i-- {
		if h.Buckets[i] > 0 {
			return h.Offsets[i]
		}
	}
	return 0
}

// Mean is the count-weighted mean of the bucket upper bounds, rounded up,
// leaving the overflow bucket out (as ScyllaDB's mean()).
func (h Histogram) Mean() int64 {
	var n int64
	var sum float64
	for i, off := range h.Offsets {
		n += h.Buckets[i]
		sum += float64(h.Buckets[i]) * float64(off)
	}
	if n == 0 {
		return 0
	}
	return int64(math.Ceil(sum / float64(n)))
}

// Percentile is the upper bound of the bucket holding the p-th fraction
// (0..1, clamped) of the values, as ScyllaDB's percentile(): 0 when empty, and
// 1.2 × the last offset when that value lies in the overflow bucket.
func (h Histogram) Percentile(p float64) int64 {
	if math.IsNaN(p) || p < 0 {
		p = 0
	}
	p = min(p, 1)
	c := h.Count()
	if c == 0 {
		return 0
	}
	want := int64(math.Floor(float64(c) * p))
	var seen int64
	for i, off := range h.Offsets {
		if h.Buckets[i] == 0 {
			continue
		}
		seen += h.Buckets[i]
		if seen >= want {
			return off
		}
	}
	if len(h.Offsets) == 0 {
		return 0
	}
	return int64(math.Round(float64(h.Offsets[len(h.Offsets)-1]) * 1.2))
}

// parseLong reads a bare JSON integer (the api-doc "long" type).
func parseLong(body []byte) (int64, error) {
	var doc any
	if err := decodeStrict(body, &doc); err != nil {
		return 0, err
	}
	n, ok := doc.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number but %s", jsonKind(doc))
	}
	v, err := n.Int64()
	if err != nil {
		return 0, fmt.Errorf("not an integer: %w", err)
	}
	if v < 0 {
		return 0, fmt.Errorf("negative size %d", v)
	}
	return v, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// parseOwnership reads storage_service.json's array of mapper
// ({"key": address, "value": fraction formatted as a string}).
func parseOwnership(body []byte) (map[string]float64, error) {
	var entries []struct {
		Key   *string `json:"key"`
		Value *string `json:"value"`
	}
	if err := decodeStrict(body, &entries); err != nil {
		return nil, err
	}
	if entries == nil {
		return nil, errors.New("not an ownership list")
	}
	out := make(map[string]float64, len(entries))
	for i, e := range entries {
		if e.Key == nil || e.Value == nil || *e.Key == "" {
			return nil, fmt.Errorf("ownership entry %d lacks key or value", i)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(*e.Value), 64)
		if err != nil {
			return nil, fmt.Errorf("ownership of %s: %w", *e.Key, err)
		}
		// Float rounding may put a sole owner a hair above 1.
		if math.IsNaN(v) || v < 0 || v > 1+1e-6 {
			return nil, fmt.Errorf("ownership of %s is %v, outside 0..1", *e.Key, v)
		}
		if _, dup := out[*e.Key]; dup {
			return nil, fmt.Errorf("ownership lists %s twice", *e.Key)
		}
		out[*e.Key] = v
	}
	return out, nil
}
