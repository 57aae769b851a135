// Command fleet serves many partmon sidecars' /metrics from one process,
// for scale measurements (scripts/scale.sh, docs/scale.md): a captured
// snapshot of a real cluster is re-keyed into N nodes × T tables, each
// sidecar's snapshot goes through partmon's real analyzer, exporter and web
// handler, and each sidecar listens on its own loopback address, so one
// Prometheus scrapes N targets as it would scrape N real nodes. What is
// replayed: the captured node-local figures, copied per node and table,
// their operation counters advancing at the captured rates; the capture's
// keyed problems, each on one sidecar; one synthetic growth history
// (Growth). With --alertmanager each sidecar pushes its findings with
// partmon's real pusher. Nothing is collected from a database while it runs.
package main

import (
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/web"
)

type options struct {
	snapshot     string
	shape        Shape
	firstIP      string
	port         int
	plant        int
	floor        exporter.TableFloor
	targetsFile  string
	plantedFile  string
	alertmanager string
	advance      time.Duration
}

func main() {
	var o options
	flag.StringVar(&o.snapshot, "snapshot", "tools/cmd/fleet/testdata/fixture-cluster-snapshot.gz", "captured snapshot (partmon collect --format json), optionally gzipped")
	flag.IntVar(&o.shape.Sidecars, "sidecars", 10, "sidecars (nodes) to serve")
	flag.IntVar(&o.shape.Tables, "tables", 1000, "user tables per node")
	flag.IntVar(&o.shape.DCs, "dcs", 2, "data centres")
	flag.IntVar(&o.shape.Racks, "racks", 3, "most racks per data centre (each DC gets the most that hold equally many of its nodes)")
	flag.StringVar(&o.shape.Mix, "mix", MixBusy, "the user tables: busy (every one busy at its captured size: reads and writes, tombstones per read with p99 0; the worst case) "+
		"or realistic (of every 20 tables 14 idle and 64 KiB, 5 busy, 1 busy and 1-5 GiB: an assumption, no source at hand counts a cluster's idle tables; tools/cmd/fleet/mix.go)")
	flag.Float64Var(&o.shape.IdleShare, "idle-share", 0, "with --mix busy: share of the user tables made small and idle")
	flag.StringVar(&o.firstIP, "first-ip", "127.0.1.1", "the first sidecar's address")
	flag.IntVar(&o.port, "port", 9808, "port every sidecar listens on")
	flag.IntVar(&o.plant, "plant", -1, "sidecar (0-based) that gets the capture's first keyed problem, the next ones the others and then the growth; -1 plants nothing")
	floorMode := flag.String("floor", FloorDefault, "metrics.table_floor of every sidecar: default (exporter.DefaultTableFloor, what partmon runs with) or off (every family of every table)")
	floorDisk := flag.Int64("floor-disk-bytes", 0, "with --floor default: metrics.table_floor.disk_bytes instead of the default's")
	floorOps := flag.Float64("floor-ops", 0, "with --floor default: metrics.table_floor.ops_per_second instead of the default's")
	flag.StringVar(&o.targetsFile, "targets-file", "", "write the sidecars as a Prometheus file_sd target list here")
	flag.StringVar(&o.plantedFile, "planted-file", "", "write the planted problems (kind, node, keyspace, table, key) here as JSON")
	flag.StringVar(&o.alertmanager, "alertmanager", "", "Alertmanager URL every sidecar pushes its findings to (partmon's pusher); empty pushes nothing")
	flag.DurationVar(&o.advance, "advance", 15*time.Second, "how often the sidecars' operation counters move on at the captured rates")
	flag.Parse()
	set := map[string]bool{}
	flag.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	if o.floor, err = ParseFloor(*floorMode, set["floor-disk-bytes"], *floorDisk, set["floor-ops"], *floorOps); err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		os.Exit(2)
	}
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
	if o.advance <= 0 {
		return fmt.Errorf("--advance %v: must be positive", o.advance)
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
	plants, err := assignPlants(o, tmpl, ring, tables)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	var sidecars []*sidecar
	defer func() {
		for _, sc := range sidecars {
			_ = sc.srv.Close()
		}
	}()
	for i := range ring {
		sc, err := serveSidecar(ctx, o, tmpl, ring, tables, plants, i)
		if err != nil {
			return err
		}
		sidecars = append(sidecars, sc)
	}
	fmt.Fprintf(os.Stderr, "fleet: %d sidecars × %d tables (mix %s, floor %+v; %d healthy captured tables replayed, %d problems planted) ready in %.1f s\n",
		len(ring), o.shape.Tables, cmp.Or(o.shape.Mix, MixBusy), o.floor, len(tmpl.Healthy), len(plants), time.Since(start).Seconds())
	if err := writeTargets(o, ring); err != nil {
		return err
	}
	if o.plantedFile != "" && o.plant >= 0 {
		if err := writeJSON(o.plantedFile, plants); err != nil {
			return err
		}
	}
	advance(ctx, sidecars, o.advance)
	return nil
}

// The --floor modes.
const (
	FloorDefault = "default" // exporter.DefaultTableFloor(): what partmon runs with
	FloorOff     = "off"     // exporter.TableFloor{}: every family of every table node
)

// ParseFloor is the floor of --floor mode, its disk bytes and operations
// per second replaced by --floor-disk-bytes and --floor-ops when given
// (diskSet, opsSet); those need the floor on.
func ParseFloor(mode string, diskSet bool, disk int64, opsSet bool, ops float64) (exporter.TableFloor, error) {
	var f exporter.TableFloor
	switch mode {
	case FloorDefault:
		f = exporter.DefaultTableFloor()
	case FloorOff:
		if diskSet || opsSet {
			return f, fmt.Errorf("--floor-disk-bytes and --floor-ops set parts of a floor, and --floor %s has none", FloorOff)
		}
		return f, nil
	default:
		return f, fmt.Errorf("--floor %q: want %s or %s", mode, FloorDefault, FloorOff)
	}
	if diskSet {
		f.DiskBytes = disk
	}
	if opsSet {
		f.OpsPerSecond = ops
	}
	return f, f.Validate()
}

// Planted is one problem the fleet plants, as tools/cmd/scale checks it.
type Planted struct {
	Kind     string `json:"kind"`
	Node     string `json:"node"`
	Keyspace string `json:"keyspace"`
	Table    string `json:"table"`
	Key      string `json:"partition_key,omitempty"`
	// Alerts: the problem must raise exactly one alert, carrying Key; the
	// growth must raise none (its forecast is past the warning horizon).
	MustAlert bool `json:"alerts"`
	sidecar   int
}

// assignPlants puts the capture's keyed problems on sidecars --plant,
// --plant+1, …, and the growth on the next one (wrapping around).
func assignPlants(o options, tmpl *Template, ring []FleetNode, tables []scaledTable) ([]Planted, error) {
	if o.plant < 0 {
		return nil, nil
	}
	want := len(tmpl.Problems) + 1
	switch {
	case o.plant >= len(ring):
		return nil, fmt.Errorf("--plant %d: there are %d sidecars", o.plant, len(ring))
	case len(tmpl.Problems) == 0:
		return nil, fmt.Errorf("the captured snapshot has no keyed problem to plant (kinds %v)", PlantKinds)
	case len(ring) < want:
		return nil, fmt.Errorf("--plant needs %d sidecars, one per planted problem and one for the growth; there are %d", want, len(ring))
	}
	var out []Planted
	for k, p := range tmpl.Problems {
		i := (o.plant + k) % len(ring)
		out = append(out, Planted{Kind: p.Kind, Node: ring[i].Address, Keyspace: p.Keyspace, Table: p.Table, Key: p.Key, MustAlert: true, sidecar: i})
	}
	i := (o.plant + len(tmpl.Problems)) % len(ring)
	g := tables[0]
	out = append(out, Planted{Kind: analyzer.KindPartitionGrowthForecast, Node: ring[i].Address, Keyspace: g.Keyspace, Table: g.Name, sidecar: i})
	return out, nil
}

// sidecar is one served node: its latest report and what republishes it.
type sidecar struct {
	srv    *http.Server
	latest *publish.Latest
	report *analyzer.Report // as analyzed; advance publishes copies
}

// serveSidecar builds sidecar i's report with the real analyzer and serves
// it with the real exporter and web handler, as `partmon run` in sidecar
// mode does after a cycle; with --alertmanager its pusher sends the report's
// findings as partmon's does.
func serveSidecar(ctx context.Context, o options, tmpl *Template, ring []FleetNode, tables []scaledTable, plants []Planted, i int) (*sidecar, error) {
	snap, hist := sidecarSnapshot(o, tmpl, ring, tables, plants, i, time.Now())
	report := analyzer.Analyze(snap, hist, analyzer.DefaultThresholds())
	var alerts prometheus.Collector
	if o.alertmanager != "" {
		p, err := alertmanager.New(alertmanager.Options{URLs: []string{o.alertmanager}, Mode: publish.ModeSidecar})
		if err != nil {
			return nil, err
		}
		p.Update(report)
		go p.Run(ctx)
		alerts = p
	}
	h, latest, err := sidecarHandler(o.floor, report, alerts)
	if err != nil {
		return nil, err
	}
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
	return &sidecar{srv: srv, latest: latest, report: report}, nil
}

// sidecarHandler serves report as a sidecar's web handler does after a
// cycle: partmon's exporter in sidecar mode with the floor, the cached
// exposition; alerts (the pusher's self-metrics) may be nil.
func sidecarHandler(floor exporter.TableFloor, report *analyzer.Report, alerts prometheus.Collector) (http.Handler, *publish.Latest, error) {
	latest := &publish.Latest{}
	e := exporter.New(latest, exporter.Options{Mode: publish.ModeSidecar, TableFloor: floor})
	h, err := web.NewHandler(latest, e, alerts, web.HandlerOptions{DisableExporterMetrics: true})
	if err != nil {
		return nil, nil, err
	}
	latest.Publish(report)
	return h, latest, nil
}

// sidecarSnapshot is sidecar i's snapshot, taken at now, with whatever
// assignPlants put on it, and its history (the growth's, else none).
func sidecarSnapshot(o options, tmpl *Template, ring []FleetNode, tables []scaledTable, plants []Planted, i int, now time.Time) (*model.Snapshot, *history.History) {
	snap := Rekey(tmpl.Snapshot, o.shape, ring, tables, i, now)
	withDiskGuardrail(snap.PerNode[ring[i].HostID])
	for k, p := range tmpl.Problems {
		tmpl.Plant(snap, ring[i], p, len(plants) > k && plants[k].sidecar == i, o.shape.DCs)
	}
	if n := len(plants); n > 0 && plants[n-1].sidecar == i && !plants[n-1].MustAlert {
		g := plants[n-1]
		return snap, DefaultGrowth.Plant(snap, ring[i], g.Keyspace, g.Table)
	}
	return snap, nil
}

// The disk-usage guardrail every sidecar replays when the capture has none:
// the fixture cluster leaves data_disk_usage_percentage unset, and the
// overview's guardrail panel reads its levels. Synthetic, as the growth is:
// an operator's 70 % and 80 %.
const diskGuardrailWarn, diskGuardrailFail = "70", "80"

// withDiskGuardrail sets the disk-usage guardrail's levels in nd's settings
// where the capture has none.
func withDiskGuardrail(nd *model.NodeData) {
	if nd == nil {
		return
	}
	if nd.Settings == nil {
		nd.Settings = map[string]string{}
	}
	for key, v := range map[string]string{
		"data_disk_usage_percentage_warn_threshold": diskGuardrailWarn,
		"data_disk_usage_percentage_fail_threshold": diskGuardrailFail,
	} {
		if cur, ok := nd.Settings[key]; !ok || cur == "" || cur == "-1" {
			nd.Settings[key] = v
		}
	}
}

// advance republishes every sidecar's report each interval with its
// operation counters moved on at the captured rates (Cassandra's own moving
// rates), as a live node's would, until ctx ends: rates over the store's
// series then have the captured traffic.
func advance(ctx context.Context, sidecars []*sidecar, every time.Duration) {
	start := time.Now()
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		secs := time.Since(start).Seconds()
		for _, sc := range sidecars {
			sc.latest.Publish(Advanced(sc.report, secs))
		}
	}
}

// Advanced is a copy of r whose table counters are secs further on.
func Advanced(r *analyzer.Report, secs float64) *analyzer.Report {
	c := *r
	c.TableNodes = make([]analyzer.TableNode, len(r.TableNodes))
	for i, tn := range r.TableNodes {
		for _, ops := range []*model.Ops{&tn.LocalReads, &tn.LocalWrites, &tn.LocalScans} {
			ops.Count += int64(math.Round(max(0, ops.PerSecond) * secs))
		}
		c.TableNodes[i] = tn
	}
	return &c
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
