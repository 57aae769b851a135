package collector

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/scyllarest"
	"github.com/partmon/partmon/model"
)

// restReplayer serves the ScyllaDB REST fixtures of
// internal/scyllarest/testdata (shapes from scylladb/scylladb at
// scylla-2025.1.14, see the README.md there)
// and records the paths asked.
type restReplayer struct {
	mu    sync.Mutex
	paths []string
}

func (rp *restReplayer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rp.mu.Lock()
	rp.paths = append(rp.paths, r.URL.Path)
	rp.mu.Unlock()
	file := map[string]string{
		"/storage_service/toppartitions/":                                   "toppartitions.json",
		"/column_family/metrics/estimated_row_size_histogram/pm_hot:kv":     "size_histogram.json",
		"/column_family/metrics/estimated_row_size_histogram/pm_ts:events":  "size_histogram_empty.json",
		"/column_family/metrics/estimated_row_size_histogram/pm_gone:table": "error_400.json",
	}[r.URL.Path]
	body, err := os.ReadFile("internal/scyllarest/testdata/" + file)
	if file == "" || err != nil {
		http.NotFound(w, r)
		return
	}
	if file == "error_400.json" {
		w.WriteHeader(http.StatusBadRequest)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(body)
}

func restFixture(t *testing.T) (*restReplayer, *scyllarest.Clients) {
	t.Helper()
	rp := &restReplayer{}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	p, _ := strconv.Atoi(port)
	return rp, scyllarest.NewClients("http", p)
}

// topSource samples for 10 ms and keeps the default 10 keys per table.
func topSource(rest *scyllarest.Clients) scyllaTopPartitionsSource {
	return scyllaTopPartitionsSource{rest: rest, window: 10 * time.Millisecond, listSize: Config{}.WithDefaults().ScyllaREST.ListSize}
}

func restSchema(tables ...string) *model.Schema {
	s := &model.Schema{Keyspaces: []model.Keyspace{{Name: "system", System: true, Tables: []model.Table{{Keyspace: "system", Name: "local"}}}}}
	for i := 0; i+1 < len(tables); i += 2 {
		s.Keyspaces = append(s.Keyspaces, model.Keyspace{Name: tables[i], Tables: []model.Table{{Keyspace: tables[i], Name: tables[i+1]}}})
	}
	return s
}

func TestRESTSources(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	in := Input{Caps: scyllaCaps(), Address: "127.0.0.1", Schema: restSchema("pm_hot", "kv", "pm_ts", "events")}

	t.Run("toppartitions become hot partitions", func(t *testing.T) {
		_, rest := restFixture(t)
		out := newOutput(in.Address)
		n, err := topSource(rest).Collect(ctx, in, out)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 || len(out.Node.HotPartitions) != n {
			t.Fatalf("%d rows, %d hot partitions", n, len(out.Node.HotPartitions))
		}
		top := out.Node.HotPartitions[0]
		for _, h := range out.Node.HotPartitions {
			if h.Keyspace == "pm_hot" && h.Table == "kv" && h.Op == "read" && h.Count > top.Count {
				top = h
			}
		}
		if top.Key != "hot-key" || top.Count != 9120 {
			t.Errorf("hottest read %+v", top)
		}
	})
	t.Run("size histogram gives the max partition size", func(t *testing.T) {
		rp, rest := restFixture(t)
		out := newOutput(in.Address)
		if _, err := (scyllaSizeHistogramSource{rest}).Collect(ctx, in, out); err != nil {
			t.Fatal(err)
		}
		if got := out.Node.Tables["pm_hot.kv"].MaxPartitionBytes; got <= 0 {
			t.Errorf("max partition %d", got)
		}
		if got := out.Node.Tables["pm_ts.events"].MaxPartitionBytes; got != 0 {
			t.Errorf("empty histogram: max %d, want 0", got)
		}
		if len(rp.paths) != 2 {
			t.Errorf("asked %v: system tables must not be asked", rp.paths)
		}
	})
	t.Run("an error names the table", func(t *testing.T) {
		_, rest := restFixture(t)
		bad := in
		bad.Schema = restSchema("pm_gone", "table")
		_, err := scyllaSizeHistogramSource{rest}.Collect(ctx, bad, newOutput(in.Address))
		wantErr(t, err, "reading the size histogram of pm_gone.table on 127.0.0.1: ")
	})
	t.Run("Cassandra has no REST API", func(t *testing.T) {
		_, rest := restFixture(t)
		cass := in
		cass.Caps = cassandra50Caps()
		for _, src := range []Source{topSource(rest), scyllaSizeHistogramSource{rest}} {
			if _, err := gatedCollect(ctx, src, cass, newOutput(in.Address)); !errors.Is(err, ErrUnsupported) {
				t.Errorf("%s: want ErrUnsupported, got %v", src.Name(), err)
			}
		}
	})
	t.Run("schema not read yet", func(t *testing.T) {
		_, rest := restFixture(t)
		noSchema := in
		noSchema.Schema = nil
		_, err := scyllaSizeHistogramSource{rest}.Collect(ctx, noSchema, newOutput(in.Address))
		wantErr(t, err, "the schema has not been read yet")
	})
}
