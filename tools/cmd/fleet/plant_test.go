package main

import (
	"math"
	"net/netip"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

// TestPlantedFleet re-keys the real capture into 10 sidecars as make scale
// does, in each mix, and runs the real analyzer on each: every planted
// sidecar finds its problem with its key and nothing else, the growth sidecar forecasts its
// table past the warning horizon and finds nothing, and every other
// sidecar (healthy copies only) finds nothing at all.
func TestPlantedFleet(t *testing.T) {
	c, tmpl := realCapture(t)
	kinds := map[string]bool{}
	for _, p := range tmpl.Problems {
		kinds[p.Kind] = true
	}
	for _, k := range PlantKinds {
		if !kinds[k] {
			t.Errorf("the capture has no keyed %s to plant (problems %+v)", k, tmpl.Problems)
		}
	}
	// Both mixes: busy tables with reads and large ones must not raise a finding.
	for _, mix := range Mixes {
		t.Run(mix, func(t *testing.T) {
			o := options{shape: Shape{Sidecars: 10, Tables: 40, Mix: mix, DCs: 2, Racks: 3, FirstIP: netip.MustParseAddr("127.0.1.1")}, plant: 5}
			ring := Ring(o.shape, c.Nodes)
			tables := ScaleTables(o.shape, tmpl.Healthy)
			plants, err := assignPlants(o, tmpl, ring, tables)
			if err != nil {
				t.Fatal(err)
			}
			if len(plants) != len(tmpl.Problems)+1 {
				t.Fatalf("%d plants, want the %d problems and the growth", len(plants), len(tmpl.Problems))
			}
			bySidecar := map[int]Planted{}
			for _, p := range plants {
				if _, taken := bySidecar[p.sidecar]; taken {
					t.Fatalf("two plants on sidecar %d: %+v", p.sidecar, plants)
				}
				bySidecar[p.sidecar] = p
			}
			th := analyzer.DefaultThresholds()
			for i := range ring {
				snap, hist := sidecarSnapshot(o, tmpl, ring, tables, plants, i, c.Taken)
				p, planted := bySidecar[i]
				r := analyzer.Analyze(snap, hist, th)
				var got []string
				for _, f := range r.Findings {
					got = append(got, f.Kind+" "+f.Keyspace+"."+f.Table+" "+f.PartitionKey)
					if !planted || !p.MustAlert || f.Keyspace != p.Keyspace || f.Table != p.Table {
						t.Errorf("sidecar %d (%s): unplanted finding %s %s on %s.%s: %s", i, ring[i].Address, f.Severity, f.Kind, f.Keyspace, f.Table, f.Summary)
					}
				}
				for _, f := range r.Remarks {
					if f.Table != "" && (!planted || f.Table != p.Table) {
						t.Errorf("sidecar %d: remark %s on %s.%s", i, f.Kind, f.Keyspace, f.Table)
					}
				}
				if !planted {
					continue
				}
				if p.MustAlert {
					found := false
					for _, f := range r.Findings {
						found = found || (f.Kind == p.Kind && f.PartitionKey == p.Key && f.Severity >= finding.SeverityWarning)
					}
					if !found {
						t.Errorf("sidecar %d: planted %s %s.%s key %q not found; findings %q", i, p.Kind, p.Keyspace, p.Table, p.Key, got)
					}
					continue
				}
				forecast := -1.0
				for _, ts := range r.Tables {
					if ts.Keyspace == p.Keyspace && ts.Table == p.Table {
						forecast = ts.SecondsToCritical
					}
				}
				if forecast <= th.ForecastWarning.Seconds() {
					t.Errorf("sidecar %d: growth of %s.%s forecast %.0f s, want a forecast past the %s warning horizon", i, p.Keyspace, p.Table, forecast, th.ForecastWarning)
				}
			}
		})
	}
}

// The planted growth crosses the analyzer's floors and its forecast is
// what its slope says: (critical - now) ÷ slope.
func TestGrowthPlant(t *testing.T) {
	own := FleetNode{Node: model.Node{HostID: "h1", Address: "127.0.1.1"}}
	taken := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := &model.Snapshot{Taken: taken, PerNode: map[string]*model.NodeData{"h1": {HostID: "h1", Tables: map[string]*model.TableStats{
		"ks.t": {Keyspace: "ks", Table: "t", MaxPartitionBytes: 1000},
	}}}}
	g := DefaultGrowth
	h := g.Plant(s, own, "ks", "t")
	if got := s.PerNode["h1"].Tables["ks.t"].MaxPartitionBytes; got != g.To {
		t.Errorf("largest partition now %d, want %d", got, g.To)
	}
	pts := h.Sizes["ks.t"]
	if len(pts) != g.Points-1 || pts[0][0] != taken.Add(-g.Span).Unix() || pts[0][1] != g.From {
		t.Fatalf("history %v: want %d points from %d bytes %s ago", pts, g.Points-1, g.From, g.Span)
	}
	th := analyzer.DefaultThresholds()
	slope := float64(g.To-g.From) / g.Span.Seconds()
	want := float64(th.PartitionCriticalBytes-g.To) / slope
	var ts analyzer.TableSummary
	s.Schema.Keyspaces = []model.Keyspace{{Name: "ks", Tables: []model.Table{{Keyspace: "ks", Name: "t"}}}}
	s.Nodes = []model.Node{own.Node}
	for _, x := range analyzer.Analyze(s, h, th).Tables {
		if x.Keyspace == "ks" && x.Table == "t" {
			ts = x
		}
	}
	if math.Abs(ts.SecondsToCritical-want) > want*0.01 {
		t.Errorf("forecast %.0f s, want %.0f s (slope %.1f B/s)", ts.SecondsToCritical, want, slope)
	}
	if ts.SecondsToCritical <= th.ForecastWarning.Seconds() {
		t.Errorf("forecast %.0f s is within the %s warning horizon: the growth would alert", ts.SecondsToCritical, th.ForecastWarning)
	}
}

// Advanced moves every table counter on at its captured rate and leaves
// the analyzed report as it was.
func TestAdvanced(t *testing.T) {
	r := &analyzer.Report{TableNodes: []analyzer.TableNode{{Keyspace: "ks", Table: "t", TableStats: model.TableStats{
		LocalReads:  model.Ops{Count: 100, PerSecond: 2.5},
		LocalWrites: model.Ops{Count: 7, PerSecond: 0},
		LocalScans:  model.Ops{Count: 3, PerSecond: -1},
	}}}}
	a := Advanced(r, 60)
	got := a.TableNodes[0]
	if got.LocalReads.Count != 250 || got.LocalWrites.Count != 7 || got.LocalScans.Count != 3 {
		t.Errorf("advanced counters %d/%d/%d, want 250/7/3", got.LocalReads.Count, got.LocalWrites.Count, got.LocalScans.Count)
	}
	if r.TableNodes[0].LocalReads.Count != 100 {
		t.Errorf("Advanced changed the analyzed report")
	}
}
