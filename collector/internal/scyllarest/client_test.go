package scyllarest

// ScyllaDB cannot run on this machine, so these tests point Client at an
// httptest.Server that replays fixture files (testdata/) whose shapes
// come from ScyllaDB's own source; testdata/README.md names the file
// and tag behind each one. The server is a fixture replayer for the REST
// shape, not a model of ScyllaDB's behaviour.

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
)

func readScyllaFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("reading fixture: %v", err)
	}
	return b
}

// replay answers every request with one fixture (or raw body) and status,
// and remembers the last request it saw.
type replay struct {
	status int
	body   []byte
	// handle, when set, replaces the fixed answer.
	handle func(w http.ResponseWriter, r *http.Request)

	mu    sync.Mutex
	last  *http.Request
	calls atomic.Int32
}

func (rp *replay) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rp.calls.Add(1)
	rp.mu.Lock()
	rp.last = r.Clone(context.Background())
	rp.mu.Unlock()
	if rp.handle != nil {
		rp.handle(w, r)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(rp.status)
	_, _ = w.Write(rp.body)
}

func (rp *replay) lastRequest() *http.Request {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.last
}

func newReplay(t *testing.T, rp *replay) *Client {
	t.Helper()
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return New(srv.URL+"/", srv.Client())
}

// fixtureTopRecord is the fixture read generically, so the expectations
// below come from the file rather than from the parser under test.
type fixtureTopRecord struct {
	Partition string `json:"partition"`
	Count     int64  `json:"count"`
	Error     int64  `json:"error"`
}

func fixtureTop(t *testing.T, name string) (read, write []fixtureTopRecord) {
	t.Helper()
	var f struct {
		Read  []fixtureTopRecord `json:"read"`
		Write []fixtureTopRecord `json:"write"`
	}
	if err := json.Unmarshal(readScyllaFixture(t, name), &f); err != nil {
		t.Fatalf("fixture %s: %v", name, err)
	}
	return f.Read, f.Write
}

func TestScyllaTopPartitionsRequest(t *testing.T) {
	tests := []struct {
		name         string
		tables       []string
		duration     time.Duration
		listSize     int
		capacity     int
		wantFilters  string // "" means the parameter must be absent
		wantDuration string
		wantCapacity string
	}{
		{"two tables", []string{"pm_hot.kv", "pm_ts.events"}, 1500 * time.Millisecond, 5, 0, "pm_hot:kv,pm_ts:events", "1500", "256"},
		{"all tables", nil, 2 * time.Second, 10, 0, "", "2000", "256"},
		{"list larger than the shard summary", []string{"pm_hot.kv"}, time.Second, 300, 0, "pm_hot:kv", "1000", "300"},
		{"configured capacity", []string{"pm_hot.kv"}, time.Second, 10, 1024, "pm_hot:kv", "1000", "1024"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rp := &replay{status: http.StatusOK, body: readScyllaFixture(t, "toppartitions.json")}
			c := newReplay(t, rp)
			if tc.capacity > 0 {
				c.Capacity = tc.capacity
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if _, err := c.TopPartitions(ctx, tc.tables, tc.duration, tc.listSize); err != nil {
				t.Fatalf("TopPartitions: %v", err)
			}
			req := rp.lastRequest()
			if req.URL.Path != "/storage_service/toppartitions/" {
				t.Errorf("path = %q", req.URL.Path)
			}
			q := req.URL.Query()
			if got := q.Get("duration"); got != tc.wantDuration {
				t.Errorf("duration = %q, want %q", got, tc.wantDuration)
			}
			if got := q.Get("capacity"); got != tc.wantCapacity {
				t.Errorf("capacity = %q, want %q", got, tc.wantCapacity)
			}
			// The whole summary is asked for, so totals can be derived.
			if q.Get("list_size") != q.Get("capacity") {
				t.Errorf("list_size = %q, want the capacity %q", q.Get("list_size"), q.Get("capacity"))
			}
			if _, has := q["table_filters"]; has != (tc.wantFilters != "") || q.Get("table_filters") != tc.wantFilters {
				t.Errorf("table_filters = %q (present %v), want %q", q.Get("table_filters"), has, tc.wantFilters)
			}
		})
	}
}

func TestScyllaTopPartitionsParse(t *testing.T) {
	const window = 3 * time.Second
	tests := []struct {
		name     string
		fixture  string
		listSize int
		complete bool // the fixture returns every key its summary holds
	}{
		{"complete summary, two tables", "toppartitions.json", 10, true},
		{"complete summary cut to two per table", "toppartitions.json", 2, true},
		{"summary longer than the answer", "toppartitions_partial.json", 10, false},
		{"unexpected fields are ignored", "toppartitions_extra_fields.json", 10, true},
		{"nothing sampled", "toppartitions_empty.json", 10, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newReplay(t, &replay{status: http.StatusOK, body: readScyllaFixture(t, tc.fixture)})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, err := c.TopPartitions(ctx, []string{"pm_hot.kv"}, window, tc.listSize)
			if err != nil {
				t.Fatalf("TopPartitions: %v", err)
			}
			read, write := fixtureTop(t, tc.fixture)
			want := expectTop(t, "read", read, tc.listSize, tc.complete, window)
			want = append(want, expectTop(t, "write", write, tc.listSize, tc.complete, window)...)
			sortHot(got)
			sortHot(want)
			if len(got) != len(want) {
				t.Fatalf("got %d hot partitions, want %d:\n got  %+v\n want %+v", len(got), len(want), got, want)
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("entry %d:\n got  %+v\n want %+v", i, got[i], want[i])
				}
			}
		})
	}
}

// expectTop builds the expected hot partitions from generically decoded
// fixture records: split "(ks:cf) key", total per table over all records when
// the answer is complete, the listSize highest counts per table.
func expectTop(t *testing.T, op string, recs []fixtureTopRecord, listSize int, complete bool, window time.Duration) []model.HotPartition {
	t.Helper()
	totals := map[string]int64{}
	var all []model.HotPartition
	for _, r := range recs {
		prefix, key, ok := strings.Cut(r.Partition, " ")
		ks, cf, ok2 := strings.Cut(strings.Trim(prefix, "()"), ":")
		if !ok || !ok2 {
			t.Fatalf("fixture record %q is not (ks:cf) key", r.Partition)
		}
		totals[ks+"."+cf] += r.Count
		all = append(all, model.HotPartition{Keyspace: ks, Table: cf, Key: key, Op: op, Count: r.Count, Error: r.Error, Window: window.Seconds(), Source: "rest"})
	}
	perTable := map[string][]model.HotPartition{}
	for _, h := range all {
		if complete {
			h.Total = totals[h.Keyspace+"."+h.Table]
		}
		perTable[h.Keyspace+"."+h.Table] = append(perTable[h.Keyspace+"."+h.Table], h)
	}
	var out []model.HotPartition
	for _, hs := range perTable {
		sort.Slice(hs, func(i, j int) bool { return hs[i].Count > hs[j].Count })
		out = append(out, hs[:min(len(hs), listSize)]...)
	}
	return out
}

func sortHot(h []model.HotPartition) {
	sort.Slice(h, func(i, j int) bool {
		a, b := h[i], h[j]
		return a.Op+a.Keyspace+"."+a.Table+"\x00"+a.Key < b.Op+b.Keyspace+"."+b.Table+"\x00"+b.Key
	})
}

func TestScyllaTopPartitionsHotKeyFirst(t *testing.T) {
	c := newReplay(t, &replay{status: http.StatusOK, body: readScyllaFixture(t, "toppartitions.json")})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := c.TopPartitions(ctx, []string{"pm_hot.kv", "pm_ts.events"}, time.Second, 3)
	if err != nil {
		t.Fatal(err)
	}
	var firstRead *model.HotPartition
	for i := range got {
		if got[i].Op == "read" && got[i].Keyspace == "pm_hot" && got[i].Table == "kv" {
			firstRead = &got[i]
			break
		}
	}
	if firstRead == nil || firstRead.Key != "hot-key" {
		t.Fatalf("first pm_hot.kv read = %+v, want hot-key", firstRead)
	}
	if share := float64(firstRead.Count) / float64(firstRead.Total); share < 0.9 {
		t.Errorf("hot-key share of pm_hot.kv reads = %.3f, want > 0.9 (fixture dominance)", share)
	}
}

func TestScyllaTopPartitionsRejectsBadInput(t *testing.T) {
	tests := []struct {
		name     string
		tables   []string
		duration time.Duration
		listSize int
		timeout  time.Duration
		wantErr  string
	}{
		{"table without keyspace", []string{"kv"}, time.Second, 10, time.Minute, "keyspace.table"},
		{"name that would change the URL", []string{"pm_hot.kv&x=1"}, time.Second, 10, time.Minute, "invalid table name"},
		{"zero duration", nil, 0, 10, time.Minute, "shorter than 1ms"},
		{"zero list size", nil, time.Second, 0, time.Minute, "must be positive"},
		{"deadline shorter than the sample", nil, 10 * time.Second, 10, 2 * time.Second, "not enough"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rp := &replay{status: http.StatusOK, body: readScyllaFixture(t, "toppartitions.json")}
			c := newReplay(t, rp)
			ctx, cancel := context.WithTimeout(context.Background(), tc.timeout)
			defer cancel()
			_, err := c.TopPartitions(ctx, tc.tables, tc.duration, tc.listSize)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
			if n := rp.calls.Load(); n != 0 {
				t.Errorf("server saw %d requests, want none", n)
			}
		})
	}
}

// call runs one of the four REST methods, so failure handling is checked for each.
type restCall struct {
	name    string
	path    string
	fixture string // a good answer
	do      func(ctx context.Context, c *Client) error
}

var restCalls = []restCall{
	{"TopPartitions", "/storage_service/toppartitions/", "toppartitions.json", func(ctx context.Context, c *Client) error {
		_, err := c.TopPartitions(ctx, []string{"pm_hot.kv"}, time.Millisecond, 10)
		return err
	}},
	{"SizeHistogram", "/column_family/metrics/estimated_row_size_histogram/pm_hot:kv", "size_histogram.json", func(ctx context.Context, c *Client) error {
		_, err := c.SizeHistogram(ctx, "pm_hot", "kv")
		return err
	}},
	{"MaxPartitionSize", "/column_family/metrics/max_row_size/pm_hot:kv", "max_row_size.json", func(ctx context.Context, c *Client) error {
		_, err := c.MaxPartitionSize(ctx, "pm_hot", "kv")
		return err
	}},
	{"Ownership", "/storage_service/ownership/pm_hot", "ownership.json", func(ctx context.Context, c *Client) error {
		_, err := c.Ownership(ctx, "pm_hot")
		return err
	}},
}

func TestScyllaRESTFailures(t *testing.T) {
	truncatedBody := func(w http.ResponseWriter, r *http.Request) {
		// Promise more than is sent: the server then drops the connection.
		w.Header().Set("Content-Length", "4096")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write([]byte(`{"read_cardinality": 1, "read": [{"partition": "(pm_`))
	}
	tests := []struct {
		name    string
		status  int
		body    []byte
		handle  func(w http.ResponseWriter, r *http.Request)
		maxBody int64
		// trailing sends the call's good fixture twice
		trailing bool
		wantErr  []string
	}{
		{name: "500 with a seastar error", status: 500, body: readScyllaFixture(t, "error_500.json"),
			wantErr: []string{"HTTP 500", "space_saving_top_k state is invalid"}},
		{name: "400 unknown table", status: 400, body: readScyllaFixture(t, "error_400.json"),
			wantErr: []string{"HTTP 400", "Can't find a column family nosuch in keyspace pm_hot"}},
		{name: "503 from a proxy, not JSON", status: 503, body: []byte("<html>upstream down</html>"),
			wantErr: []string{"HTTP 503", "upstream down"}},
		{name: "garbage JSON", status: 200, body: []byte("{this is not json"), wantErr: []string{"invalid JSON"}},
		{name: "HTML instead of JSON", status: 200, body: []byte("<html></html>"), wantErr: []string{"invalid JSON"}},
		{name: "empty body", status: 200, body: nil, wantErr: []string{"empty body"}},
		{name: "truncated JSON", status: 200, body: []byte(`[{"key":"127.0.0.1","value":"0.75"}, {"key":"127.0.0.2",`), wantErr: []string{"truncated JSON"}},
		{name: "connection cut mid-body", handle: truncatedBody, wantErr: []string{"unexpected EOF"}},
		{name: "body over the limit", status: 200, body: []byte(`"` + strings.Repeat("x", 200) + `"`), maxBody: 100,
			wantErr: []string{"larger than 100 bytes"}},
		{name: "good answer followed by more", status: 200, trailing: true, wantErr: []string{"trailing data"}},
	}
	for _, call := range restCalls {
		for _, tc := range tests {
			t.Run(call.name+"/"+tc.name, func(t *testing.T) {
				rp := &replay{status: tc.status, body: tc.body, handle: tc.handle}
				if tc.trailing {
					good := readScyllaFixture(t, call.fixture)
					rp.body = append(append([]byte{}, good...), good...)
				}
				c := newReplay(t, rp)
				if tc.maxBody > 0 {
					c.MaxBodyBytes = tc.maxBody
				}
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				err := call.do(ctx, c)
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				if got := rp.lastRequest().URL.Path; got != call.path {
					t.Errorf("path = %q, want %q", got, call.path)
				}
			})
		}
	}
}

func TestScyllaRESTHonoursContextDeadline(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	for _, call := range restCalls {
		t.Run(call.name, func(t *testing.T) {
			rp := &replay{handle: func(w http.ResponseWriter, r *http.Request) {
				select { // a node that never answers
				case <-r.Context().Done():
				case <-release:
				}
			}}
			c := newReplay(t, rp)
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			err := call.do(ctx, c)
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("err = %v, want context.DeadlineExceeded", err)
			}
		})
	}
}

func TestScyllaRESTMalformedDocuments(t *testing.T) {
	tests := []struct {
		name    string
		call    int // index into restCalls
		body    string
		wantErr string
	}{
		{"negative count", 0, string(readScyllaFixture(t, "toppartitions_negative.json")), "negative count"},
		{"negative cardinality", 0, `{"read_cardinality": -1, "write_cardinality": 0}`, "negative read_cardinality"},
		{"more entries than cardinality", 0, `{"read_cardinality": 0, "read": [{"partition": "(a:b) k", "count": 1, "error": 0}], "write_cardinality": 0}`, "cardinality is 0"},
		{"not a toppartitions answer", 0, `{"buckets": [0]}`, "read_cardinality"},
		{"partition without prefix", 0, `{"read_cardinality": 1, "read": [{"partition": "hot-key", "count": 1, "error": 0}], "write_cardinality": 0}`, "prefix"},
		{"entry without count", 0, `{"read_cardinality": 1, "read": [{"partition": "(a:b) k", "error": 0}], "write_cardinality": 0}`, "lacks"},
		{"fractional count", 0, `{"read_cardinality": 1, "read": [{"partition": "(a:b) k", "count": 1.5, "error": 0}], "write_cardinality": 0}`, "invalid JSON"},
		{"histogram off by one", 1, `{"buckets": [0, 1], "bucket_offsets": [1, 2]}`, "2 buckets for 2 offsets"},
		{"histogram negative bucket", 1, `{"buckets": [0, -1, 0], "bucket_offsets": [1, 2]}`, "negative count"},
		{"histogram offsets not increasing", 1, `{"buckets": [0, 1, 0], "bucket_offsets": [2, 2]}`, "not above"},
		{"histogram without buckets", 1, `{"bucket_offsets": [1]}`, "buckets missing"},
		{"max size negative", 2, `-1`, "negative size"},
		{"max size a string", 2, `"12"`, "not a number but a string"},
		{"max size an object", 2, `{"value": 12}`, "not a number but an object"},
		{"max size float", 2, `1.5e3`, "not an integer"},
		{"ownership above one", 3, `[{"key":"127.0.0.1","value":"1.5"}]`, "outside 0..1"},
		{"ownership not a number", 3, `[{"key":"127.0.0.1","value":"lots"}]`, "invalid syntax"},
		{"ownership nan", 3, `[{"key":"127.0.0.1","value":"nan"}]`, "outside 0..1"},
		{"ownership duplicate", 3, `[{"key":"127.0.0.1","value":"0.5"}, {"key":"127.0.0.1","value":"0.5"}]`, "twice"},
		{"ownership object", 3, `{"key":"127.0.0.1","value":"0.5"}`, "invalid JSON"},
		{"ownership null", 3, `null`, "not an ownership list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newReplay(t, &replay{status: http.StatusOK, body: []byte(tc.body)})
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := restCalls[tc.call].do(ctx, c)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// expandHistogram lists every value the histogram counted as its bucket's
// upper bound (overflow as 1.2 × the last offset): a slow, obvious model
// of the summary statistics.
func expandHistogram(offsets, buckets []int64) []int64 {
	var vals []int64
	for i, n := range buckets {
		v := int64(0)
		if i < len(offsets) {
			v = offsets[i]
		} else if len(offsets) > 0 {
			v = int64(math.Round(float64(offsets[len(offsets)-1]) * 1.2))
		}
		for range n {
			vals = append(vals, v)
		}
	}
	return vals
}

func TestScyllaSizeHistogram(t *testing.T) {
	for _, fixture := range []string{"size_histogram.json", "size_histogram_empty.json"} {
		t.Run(fixture, func(t *testing.T) {
			body := readScyllaFixture(t, fixture)
			rp := &replay{status: http.StatusOK, body: body}
			c := newReplay(t, rp)
			h, err := c.SizeHistogram(context.Background(), "pm_hot", "kv")
			if err != nil {
				t.Fatalf("SizeHistogram: %v", err)
			}
			var raw struct {
				Offsets []int64 `json:"bucket_offsets"`
				Buckets []int64 `json:"buckets"`
			}
			if err := json.Unmarshal(body, &raw); err != nil {
				t.Fatal(err)
			}
			checkHistogramModel(t, h, raw.Offsets, raw.Buckets)
		})
	}
}

func TestHistogramSmall(t *testing.T) {
	tests := []struct {
		name             string
		offsets, buckets []int64
	}{
		{"one per bucket", []int64{1, 2, 3}, []int64{1, 1, 1, 0}},
		{"gaps", []int64{1, 2, 3, 4, 5}, []int64{0, 3, 0, 0, 2, 0}},
		{"empty", []int64{10, 12}, nil},
		{"one bucket", []int64{10, 12}, []int64{0, 5, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			buckets := tc.buckets
			if len(buckets) == 0 {
				buckets = make([]int64, len(tc.offsets)+1)
			}
			checkHistogramModel(t, Histogram{Offsets: tc.offsets, Buckets: buckets}, tc.offsets, buckets)
		})
	}
}

// checkHistogramModel compares the summary statistics with the expanded model.
func checkHistogramModel(t *testing.T, h Histogram, offsets, buckets []int64) {
	t.Helper()
	vals := expandHistogram(offsets, buckets)
	if got := h.Count(); got != int64(len(vals)) {
		t.Errorf("Count = %d, want %d", got, len(vals))
	}
	var wantMax int64
	var sum float64
	for _, v := range vals {
		wantMax = max(wantMax, v)
		sum += float64(v)
	}
	if got := h.Max(); got != wantMax {
		t.Errorf("Max = %d, want %d", got, wantMax)
	}
	var wantMean int64
	if len(vals) > 0 {
		wantMean = int64(math.Ceil(sum / float64(len(vals))))
	}
	if got := h.Mean(); got != wantMean {
		t.Errorf("Mean = %d, want %d", got, wantMean)
	}
	for _, p := range []float64{0, 0.1, 0.5, 0.6, 0.75, 0.95, 0.99, 0.999, 1} {
		var want int64
		if len(vals) > 0 {
			// ScyllaDB's rule: the smallest value with at least floor(n·p) values at or below it.
			idx := max(int(math.Floor(float64(len(vals))*p))-1, 0)
			want = vals[idx]
		}
		if got := h.Percentile(p); got != want {
			t.Errorf("Percentile(%v) = %d, want %d", p, got, want)
		}
	}
}

func TestHistogramOverflow(t *testing.T) {
	h := Histogram{Offsets: []int64{1, 2, 3}, Buckets: []int64{0, 4, 0, 1}}
	if !h.Overflowed() || h.Max() != math.MaxInt64 {
		t.Errorf("Overflowed = %v, Max = %d; want true, MaxInt64", h.Overflowed(), h.Max())
	}
	if got, want := h.Mean(), int64(2); got != want { // the overflow bucket is left out, as in ScyllaDB
		t.Errorf("Mean = %d, want %d", got, want)
	}
	if got, want := h.Percentile(1), int64(math.Round(3*1.2)); got != want {
		t.Errorf("Percentile(1) = %d, want %d", got, want)
	}
	for _, p := range []float64{-1, math.NaN(), 2} { // clamped, never a panic
		_ = h.Percentile(p)
	}
}

func TestScyllaMaxPartitionSize(t *testing.T) {
	body := readScyllaFixture(t, "max_row_size.json")
	c := newReplay(t, &replay{status: http.StatusOK, body: body})
	got, err := c.MaxPartitionSize(context.Background(), "pm_hot", "kv")
	if err != nil {
		t.Fatal(err)
	}
	want, err := strconv.ParseInt(strings.TrimSpace(string(body)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("MaxPartitionSize = %d, want %d", got, want)
	}
}

func TestScyllaOwnership(t *testing.T) {
	body := readScyllaFixture(t, "ownership.json")
	var raw []map[string]string
	if err := json.Unmarshal(body, &raw); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		call     func(ctx context.Context, c *Client) (map[string]float64, error)
		wantPath string
		wantCF   string
	}{
		{"keyspace", func(ctx context.Context, c *Client) (map[string]float64, error) {
			return c.Ownership(ctx, "pm_hot")
		},
			"/storage_service/ownership/pm_hot", ""},
		{"tablet table", func(ctx context.Context, c *Client) (map[string]float64, error) {
			return c.TableOwnership(ctx, "pm_hot", "kv")
		}, "/storage_service/ownership/pm_hot", "kv"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rp := &replay{status: http.StatusOK, body: body}
			c := newReplay(t, rp)
			got, err := tc.call(context.Background(), c)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(raw) {
				t.Fatalf("got %d nodes, want %d", len(got), len(raw))
			}
			for _, e := range raw {
				want, _ := strconv.ParseFloat(e["value"], 64)
				if got[e["key"]] != want {
					t.Errorf("ownership of %s = %v, want %v", e["key"], got[e["key"]], want)
				}
			}
			req := rp.lastRequest()
			if req.URL.Path != tc.wantPath || req.URL.Query().Get("cf") != tc.wantCF {
				t.Errorf("request %s?%s, want %s with cf=%q", req.URL.Path, req.URL.RawQuery, tc.wantPath, tc.wantCF)
			}
		})
	}
}

func TestScyllaRESTRejectsBadNames(t *testing.T) {
	rp := &replay{status: http.StatusOK, body: []byte("0")}
	c := newReplay(t, rp)
	ctx := context.Background()
	for _, name := range []string{"", "a/b", "a:b", "../x", "k s", url.PathEscape("ks/../x")} {
		if _, err := c.MaxPartitionSize(ctx, name, "kv"); err == nil {
			t.Errorf("keyspace %q accepted", name)
		}
		if _, err := c.SizeHistogram(ctx, "pm_hot", name); err == nil {
			t.Errorf("table %q accepted", name)
		}
		if _, err := c.Ownership(ctx, name); err == nil {
			t.Errorf("ownership keyspace %q accepted", name)
		}
	}
	if n := rp.calls.Load(); n != 0 {
		t.Errorf("server saw %d requests, want none", n)
	}
}

func BenchmarkParseScyllaTopPartitions(b *testing.B) {
	body := readScyllaFixture(b, "toppartitions.json")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := parseTopPartitions(body, time.Second, 10); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseScyllaHistogram(b *testing.B) {
	body := readScyllaFixture(b, "size_histogram.json")
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if _, err := parseHistogram(body); err != nil {
			b.Fatal(err)
		}
	}
}
