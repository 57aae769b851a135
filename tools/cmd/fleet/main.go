// Command fleet serves many partmon sidecars' /metrics from one process,
// for scale measurements (scripts/scale.sh, docs/scale.md): a captured
// snapshot of a real cluster is re-keyed into N nodes × T tables, each
// sidecar's snapshot goes through partmon's real analyzer, exporter and web
// handler, and each sidecar listens on its own loopback address, so one
// Prometheus scrapes N targets as it would scrape N real nodes. What is
// replayed: the captured node-local figures, copied per node and table;
// nothing is collected from a database while it runs.
package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/publish"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/web"
)

type options struct {
	snapshot    string
	shape       Shape
	firstIP     string
	port        int
	plant       int
	floor       exporter.TableFloor
	targetsFile string
	plantedFile string
}

func main() {
	var o options
	flag.StringVar(&o.snapshot, "snapshot", "tools/cmd/fleet/testdata/fixture-cluster-snapshot.gz", "captured snapshot (partmon collect --format json), optionally gzipped")
	flag.IntVar(&o.shape.Sidecars, "sidecars", 10, "sidecars (nodes) to serve")
	flag.IntVar(&o.shape.Tables, "tables", 1000, "user tables per node")
	flag.IntVar(&o.shape.DCs, "dcs", 2, "data centres")
	flag.IntVar(&o.shape.Racks, "racks", 3, "most racks per data centre (each DC gets the most that hold equally many of its nodes)")
	flag.Float64Var(&o.shape.IdleShare, "idle-share", 0, "share of the user tables made small and idle")
	flag.StringVar(&o.firstIP, "first-ip", "127.0.1.1", "the first sidecar's address")
	flag.IntVar(&o.port, "port", 9808, "port every sidecar listens on")
	flag.IntVar(&o.plant, "plant", -1, "sidecar (0-based) that gets the captured hot key; -1 plants nothing")
	flag.Int64Var(&o.floor.DiskBytes, "floor-disk-bytes", 0, "metrics.table_floor.disk_bytes")
	flag.Float64Var(&o.floor.OpsPerSecond, "floor-ops", 0, "metrics.table_floor.ops_per_second")
	flag.StringVar(&o.targetsFile, "targets-file", "", "write the sidecars as a Prometheus file_sd target list here")
	flag.StringVar(&o.plantedFile, "planted-file", "", "write the planted problem (node, keyspace, table, key) here as JSON")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	first, err := netip.ParseAddr(o.firstIP)
	if err != nil {
		return err
	}
	o.shape.FirstIP = first
	if err := o.shape.Validate(); err != nil {
		return err
	}
	if err := o.floor.Validate(); err != nil {
		return err
	}
	captured, err := readSnapshot(o.snapshot)
	if err != nil {
		return err
	}
	tmpl, err := NewTemplate(captured)
	if err != nil {
		return err
	}
	ring := Ring(o.shape, captured.Nodes)
	tables := ScaleTables(o.shape, tmpl.Healthy)
	start := time.Now()
	var servers []*http.Server
	defer func() {
		for _, s := range servers {
			_ = s.Close()
		}
	}()
	for i := range ring {
		s, err := serveSidecar(o, tmpl, ring, tables, i)
		if err != nil {
			return err
		}
		servers = append(servers, s)
	}
	fmt.Fprintf(os.Stderr, "fleet: %d sidecars × %d tables (%d healthy captured tables replayed) ready in %.1f s\n",
		len(ring), o.shape.Tables, len(tmpl.Healthy), time.Since(start).Seconds())
	if err := writeTargets(o, ring); err != nil {
		return err
	}
	if err := writePlanted(o, tmpl, ring); err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	return nil
}

// serveSidecar builds sidecar i's report with the real analyzer and serves
// it with the real exporter and web handler, as `partmon run` in sidecar
// mode does after a cycle.
func serveSidecar(o options, tmpl *Template, ring []FleetNode, tables []scaledTable, i int) (*http.Server, error) {
	now := time.Now()
	snap := Rekey(tmpl.Snapshot, o.shape, ring, tables, i, now)
	tmpl.Plant(snap, ring[i], i == o.plant, o.shape.DCs)
	report := analyzer.Analyze(snap, nil, analyzer.DefaultThresholds())
	latest := &publish.Latest{}
	e := exporter.New(latest, exporter.Options{Mode: publish.ModeSidecar, TableFloor: o.floor})
	h, err := web.NewHandler(latest, e, nil, web.HandlerOptions{DisableExporterMetrics: true})
	if err != nil {
		return nil, err
	}
	latest.Publish(report)
	addr := net.JoinHostPort(ring[i].Address, fmt.Sprint(o.port))
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(os.Stderr, "fleet: %s: %v\n", addr, err)
		}
	}()
	return srv, nil
}

func readSnapshot(path string) (*model.Snapshot, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		z, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		defer z.Close()
		r = z
	}
	var s model.Snapshot
	if err := json.NewDecoder(r).Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(s.Nodes) == 0 {
		return nil, fmt.Errorf("%s: no nodes", path)
	}
	return &s, nil
}

func writeTargets(o options, ring []FleetNode) error {
	if o.targetsFile == "" {
		return nil
	}
	var targets []string
	for _, n := range ring {
		targets = append(targets, net.JoinHostPort(n.Address, fmt.Sprint(o.port)))
	}
	return writeJSON(o.targetsFile, []map[string]any{{"targets": targets}})
}

// Planted is the one problem the fleet plants, as scripts/scale.sh checks it.
type Planted struct {
	Node     string `json:"node"`
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	Key      string `json:"partition_key"`
}

func writePlanted(o options, tmpl *Template, ring []FleetNode) error {
	if o.plantedFile == "" || o.plant < 0 {
		return nil
	}
	if o.plant >= len(ring) {
		return fmt.Errorf("--plant %d: there are %d sidecars", o.plant, len(ring))
	}
	ks, table, key := tmpl.PlantedKey()
	if key == "" {
		return fmt.Errorf("the captured snapshot has no hot key to plant")
	}
	return writeJSON(o.plantedFile, Planted{Node: ring[o.plant].Address, Keyspace: ks, Table: table, Key: key})
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
