package statefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/history"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// bigHistory: 200 tables of 96 size points, traffic on three nodes, a
// heatmap column and key series: a few hundred KB of JSON.
func bigHistory() *history.History {
	h := history.New(history.Limits{})
	h.Keys = &history.KeyHistory{Tables: map[string]map[string]*history.KeySeries{}}
	h.Heat = &history.Heat{Nodes: []string{"h1", "h2", "h3"}, Columns: []history.HeatColumn{{Start: 1, End: 2, Tables: map[string]history.HeatRates{}}}}
	for i := 0; i < 200; i++ {
		tk := fmt.Sprintf("shop.t%03d", i)
		for p := 0; p < 96; p++ {
			h.Sizes[tk] = append(h.Sizes[tk], history.SizePoint{1765000000 + int64(p)*1800, 1 << 20})
		}
		for _, host := range []string{"h1", "h2", "h3"} {
			if h.Traffic[host] == nil {
				h.Traffic[host] = map[string][]history.TrafficPoint{}
			}
			for p := 0; p < 15; p++ {
				h.Traffic[host][tk] = append(h.Traffic[host][tk], history.TrafficPoint{1765100000 + int64(p)*60, 1000, 500})
			}
		}
		h.Heat.Columns[0].Tables[tk] = history.HeatRates{Reads: []float64{1, 2, 3}, Writes: []float64{4, 5, 6}}
		ks := &history.KeySeries{First: 1, Last: 2}
		for p := 0; p < 48; p++ {
			ks.Points = append(ks.Points, history.KeyPoint{int64(p), 1 << 20, 0, 0})
		}
		h.Keys.Tables[tk] = map[string]*history.KeySeries{"k": ks}
	}
	return h
}

// A history past the bound is saved under it: thinned first, then its
// least useful parts left out, in that order; the history in memory stays
// whole, and the file reads back.
func TestSaveKeepsTheBound(t *testing.T) {
	h := bigHistory()
	path := filepath.Join(t.TempDir(), "state.json")
	whole, err := save(path, h, nil, nil, 1<<30)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit int
		cuts  int
	}{{len(whole.data) * 3 / 4, 1}, {len(whole.data) / 3, 2}, {len(whole.data) / 5, len(cuts)}} {
		f, err := save(path, h, nil, nil, tc.limit)
		if err != nil {
			t.Fatalf("limit %d: %v", tc.limit, err)
		}
		fi, _ := os.Stat(path)
		if fi.Size() > int64(tc.limit) || len(f.dropped) != tc.cuts || !strings.Contains(f.dropped[0], "thinned") {
			t.Errorf("limit %d: file %d bytes, cuts %q, want %d cuts, thinning first", tc.limit, fi.Size(), f.dropped, tc.cuts)
		}
		got := Load(path, history.Limits{}, zap.NewNop())
		if n := len(got.Sizes["shop.t000"]); n >= 96 || n < 24 {
			t.Errorf("limit %d: %d size points read back, want thinned from 96", tc.limit, n)
		}
	}
	if len(h.Sizes["shop.t000"]) != 96 || h.Heat == nil || h.Keys == nil || len(h.Traffic["h1"]["shop.t000"]) != 15 {
		t.Error("saving under the bound changed the history in memory")
	}
	if _, err := save(path, h, nil, nil, 100); err == nil {
		t.Error("a bound nothing fits under: want an error, not a file over it")
	}
}

func TestNewerStateFileIsLeftUntouched(t *testing.T) {
	for name, content := range map[string]string{
		"file":    `{"format":"partmon-state","version":99,"history":{}}`,
		"history": `{"format":"partmon-state","version":1,"history":{"version":99}}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.json")
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				t.Fatal(err)
			}
			core, logs := observer.New(zap.WarnLevel)
			h := Load(path, history.Limits{}, zap.New(core))
			if h == nil || len(h.Sizes) != 0 || logs.Len() != 1 || !strings.Contains(logs.All()[0].Message, "newer partmon") {
				t.Fatalf("history %+v, logs %v", h, logs.All())
			}
			s := &Saver{Path: path, Log: zap.New(core)}
			for i := 0; i < 2; i++ {
				s.Save(bigHistory(), nil, nil)
			}
			if err := Save(path, bigHistory(), nil, nil); !errors.Is(err, ErrNewer) {
				t.Errorf("Save over a newer file: %v, want ErrNewer", err)
			}
			if data, _ := os.ReadFile(path); string(data) != content {
				t.Errorf("newer file changed: %.80q", data)
			}
			if aside, _ := filepath.Glob(path + ".*"); len(aside) != 0 {
				t.Errorf("files beside it: %v", aside)
			}
			if logs.Len() != 2 {
				t.Errorf("want the load's warning and one from the saver, got %v", logs.All())
			}
		})
	}
}

// A newer partmon that starts while this one runs writes its file: this
// one's next save leaves it.
func TestSaveLeavesAFileANewerPartmonWrote(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	content := `{"format":"partmon-state","version":2,"saved":"x","history":{}}`
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := Save(path, bigHistory(), nil, nil); !errors.Is(err, ErrNewer) {
		t.Fatalf("Save = %v, want ErrNewer", err)
	}
}

func TestSetAsideFilesAreBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	for i := 0; i < maxAside+3; i++ {
		if err := os.WriteFile(path, []byte(fmt.Sprintf("corrupt %d", i)), 0o600); err != nil {
			t.Fatal(err)
		}
		Load(path, history.Limits{}, zap.NewNop())
		time.Sleep(2 * time.Millisecond) // names differ by the millisecond
	}
	aside, _ := filepath.Glob(path + ".bad-*")
	if len(aside) != maxAside {
		t.Fatalf("%d files set aside, want the last %d: %v", len(aside), maxAside, aside)
	}
	if data, _ := os.ReadFile(aside[len(aside)-1]); string(data) != fmt.Sprintf("corrupt %d", maxAside+2) {
		t.Errorf("the newest set aside is %q", data)
	}
}

func TestSaverPace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	s := &Saver{Path: path, Every: time.Minute}
	now := time.Now()
	h := bigHistory()
	if !s.Due(now, h) {
		t.Fatal("the first save is not due")
	}
	s.Save(h, nil, nil)
	if s.Due(time.Now(), h) || !s.Due(time.Now().Add(time.Minute), h) {
		t.Error("want the next save due a minute later, not before")
	}
	h.Sizes["shop.new"] = []history.SizePoint{{1, 1}}
	if !s.Due(time.Now(), h) {
		t.Error("a table new to the history: want a save at once")
	}
	if _, err := os.Stat(path); err != nil {
		t.Error(err)
	}
	if (&Saver{}).Due(now, h) {
		t.Error("no path: nothing is ever due")
	}
}

func TestCheckLimits(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    history.Limits
		ok   bool
	}{
		{"defaults", history.Limits{}, true},
		{"shipped", history.DefaultLimits(), true},
		{"a million keys", history.Limits{MaxKeys: 1000000}, false},
		{"1,000 points a key", history.Limits{KeyPoints: 1000}, false},
		{"1,000 × 1,000 heat", history.Limits{HeatColumns: 1000, HeatTables: 1000}, false},
		{"a larger heatmap that fits", history.Limits{HeatColumns: 240, HeatTables: 128}, true},
	} {
		err := CheckLimits(tc.l)
		if (err == nil) != tc.ok {
			t.Errorf("%s: %v", tc.name, err)
		}
		if err != nil && !strings.Contains(err.Error(), "lower") {
			t.Errorf("%s: the message does not say what to change: %v", tc.name, err)
		}
	}
}
