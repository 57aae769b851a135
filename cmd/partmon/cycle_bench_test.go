package main

import (
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"

	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/statefile"
	"github.com/partmon/partmon/web"
)

// BenchmarkCycleAtScale is one whole analysis cycle of the daemon (its own
// analyze: keys learned, history recorded, analysis, the report published
// with keys hashed), the state saved, then /metrics, the status page and
// the API (report and findings) rendered once. It lives here because the
// daemon owns the cycle. The snapshot replays the fixture cluster's
// capture (tools/cmd/fleet/testdata): its system tables, settings and its
// healthy table's figures, scaled to nodes × tables in make scale's
// realistic mix (of every 20 tables 14 idle, 5 busy, 1 large), with 1,000
// log entries a node and 20,000 sampled keys over the busy tables. The
// exporter runs as the daemon's does by default, with its table floor
// (--metrics.all-tables turns it off).
func BenchmarkCycleAtScale(b *testing.B) {
	for _, size := range []struct{ nodes, tables int }{{10, 1000}, {30, 1000}, {30, 2000}, {60, 1000}, {30, 10000}} {
		b.Run(fmt.Sprintf("%dx%d", size.nodes, size.tables), func(b *testing.B) { benchCycle(b, size.nodes, size.tables) })
	}
}

func benchCycle(b *testing.B, nodes, tables int) {
	capture := readCapture(b)
	snap := scaledSnapshot(capture, nodes, tables)
	keyer := keys.New(keys.Hashed, []byte("0123456789abcdef-bench-secret"), 0)
	cfg := defaultConfig()
	latest := &publish.Latest{Keys: keyer}
	d := &daemon{cfg: cfg, log: zap.NewNop(), collector: &collector.Collector{}, latest: latest, keys: keyer,
		exporter: exporter.New(latest, exporter.Options{Cluster: "bench", Mode: publish.ModeCluster, TopK: cfg.Thresholds.TopK,
			TableFloor: cfg.Metrics.TableFloor, Thresholds: cfg.Thresholds}),
		history:  history.New(cfg.Analysis.History),
		saver:    &statefile.Saver{Path: filepath.Join(b.TempDir(), "state.json"), Every: 1000 * time.Hour},
		snapshot: func() *model.Snapshot { return snap }}
	handler, err := web.NewHandler(latest, d.exporter, nil, web.HandlerOptions{Logger: zap.NewNop(), TelemetryPath: "/metrics"})
	if err != nil {
		b.Fatal(err)
	}
	cycle := func(minute int) int {
		advance(snap, minute)
		d.analyze(time.Now())
		d.saveState(true)
		size := 0
		for _, path := range []string{"/metrics", "/", "/api/v1/report", "/api/v1/findings"} {
			w := &countingWriter{header: http.Header{}}
			handler.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
			if w.code != 200 {
				b.Fatalf("%s: %d", path, w.code)
			}
			size += w.n
		}
		return size
	}
	cycle(0) // the history's first points: rates need two
	runtime.GC()
	peak := watchHeap()
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	var size int
	for i := 0; i < b.N; i++ {
		size = cycle(i + 1)
	}
	b.StopTimer()
	b.ReportMetric(float64((processCPU()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(peak())/(1<<20), "peak-heap-MiB")
	b.ReportMetric(float64(size)/(1<<20), "rendered-MiB")
	r := latest.Report()
	if r == nil || len(r.TableNodes) < nodes*tables {
		b.Fatalf("the cycle published no report of %d table nodes", nodes*tables)
	}
	b.ReportMetric(float64(len(r.Findings)), "findings")
}

// countingWriter is a client that reads a response and keeps none of it,
// as the daemon's connection does: an httptest.ResponseRecorder would hold
// every body whole (growing its buffer by doubling), which is the
// benchmark's cost, not the daemon's.
type countingWriter struct {
	header http.Header
	code   int
	n      int
}

func (w *countingWriter) Header() http.Header { return w.header }

func (w *countingWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	w.n += len(p)
	return len(p), nil
}

// watchHeap samples the heap's live and not yet swept objects every 5 ms
// until the returned function is called, which gives the highest seen.
func watchHeap() func() uint64 {
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	go func() {
		defer close(done)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	return func() uint64 { close(stop); <-done; return peak.Load() }
}

// processCPU is the process's user and system time: the machine is
// shared, and wall time says as much about the neighbours as the code.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func readCapture(b *testing.B) *model.Snapshot {
	f, err := os.Open("../../tools/cmd/fleet/testdata/fixture-cluster-snapshot.gz")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	var s model.Snapshot
	if err := json.NewDecoder(z).Decode(&s); err != nil {
		b.Fatal(err)
	}
	return &s
}

// advance moves the snapshot a minute on: every busy table's counters grow.
func advance(s *model.Snapshot, minute int) {
	s.Taken = s.Taken.Add(time.Minute)
	for i := range s.Sources {
		s.Sources[i].Taken, s.Sources[i].LastSuccess = s.Taken, s.Taken
	}
	for _, nd := range s.PerNode {
		for _, st := range nd.Tables {
			if st.LocalWrites.PerSecond > 0 {
				st.LocalWrites.Count += int64(st.LocalWrites.PerSecond * 60)
				st.LocalReads.Count += int64(st.LocalReads.PerSecond * 60)
			}
		}
		for i := range nd.LogEvidence {
			nd.LogEvidence[i].Last = s.Taken.Add(-time.Duration(minute%7) * time.Second)
		}
	}
}
