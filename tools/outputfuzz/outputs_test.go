package outputfuzz

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"go.uber.org/zap"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/render"
	"github.com/partmon/partmon/statefile"
	"github.com/partmon/partmon/tools/snapfuzz"
	"github.com/partmon/partmon/web"
)

// FuzzOutputs: no report the analyzer makes of any snapshot may make an
// output panic or write what its reader cannot parse: the exposition
// parses (expfmt's text parser), the JSON API is JSON, the state file
// reads back, the pushed alerts are JSON an Alertmanager accepts.
func FuzzOutputs(f *testing.F) {
	f.Add(snapfuzz.ViewSeed)
	// A stand-in Alertmanager on loopback: it checks each POST's body.
	bad := make(chan string, 1)
	am := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var alerts []map[string]any
		if err := json.Unmarshal(body, &alerts); err != nil {
			select {
			case bad <- string(body):
			default:
			}
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	}))
	f.Cleanup(am.Close)
	// One server per mode, each report published to it in turn as the
	// daemon does (building the handler parses the page's templates: most
	// of an input's time when done for each).
	// The sidecar's hides keys (keys.mode hashed): the report it publishes is
	// a copy redacted by reflection.
	servers := []*server{newServer(f, publish.ModeCluster, nil),
		newServer(f, publish.ModeSidecar, keys.New(keys.Hashed, []byte("outputfuzz secret, 16+ bytes"), 0))}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, h := snapfuzz.Report(data)
		snapfuzz.Check(t, r)
		for _, s := range servers {
			s.serve(t, r)
		}
		renderAll(t, r)
		push(t, r, am.URL, bad)
		stateRoundTrip(t, h)
	})
}

type server struct {
	mode    publish.Mode
	latest  *publish.Latest
	handler http.Handler
	good    bool // a good report was published: a failed one leaves it served
}

func newServer(f *testing.F, mode publish.Mode, k *keys.Keyer) *server {
	latest := &publish.Latest{Keys: k}
	handler, err := web.NewHandler(latest, exporter.New(latest, exporter.Options{Mode: mode}), nil,
		web.HandlerOptions{DisableExporterMetrics: true, Logger: zap.NewNop()})
	if err != nil {
		f.Fatal(err)
	}
	return &server{mode: mode, latest: latest, handler: handler}
}

// serve publishes r and reads every page of the HTTP API.
func (s *server) serve(t *testing.T, r *analyzer.Report) {
	s.latest.Publish(r)
	mode, handler := s.mode, s.handler
	failed := publish.Failed(r) // every source failed: the last good report stays served
	s.good = s.good || !failed
	get := func(path string, want int) []byte {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Accept", "text/plain")
		handler.ServeHTTP(rec, req)
		if rec.Code != want {
			t.Errorf("%s (%s mode, report failed %v): status %d, want %d: %s", path, mode, failed, rec.Code, want, rec.Body.String())
		}
		return rec.Body.Bytes()
	}
	exposition := get("/metrics", http.StatusOK)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(exposition))
	switch {
	case err != nil:
		t.Errorf("/metrics (%s mode) does not parse: %v\n%s", mode, err, exposition)
	case families["partmon_up"] == nil:
		t.Errorf("/metrics (%s mode) has no partmon_up", mode)
	case s.good && families["partmon_analyzer_rule_failures"] == nil:
		t.Errorf("/metrics (%s mode) has no partmon_analyzer_rule_failures", mode)
	}
	api := http.StatusOK
	if !s.good {
		api = http.StatusServiceUnavailable
	}
	for _, path := range []string{"/api/v1/report", "/api/v1/findings"} {
		if body := get(path, api); !json.Valid(body) {
			t.Errorf("%s (%s mode) is not JSON: %s", path, mode, body)
		}
	}
	if page := get("/", http.StatusOK); !strings.Contains(string(page), "</html>") {
		t.Errorf("status page (%s mode) is not a whole page: %.300s", mode, page)
	}
}

func renderAll(t *testing.T, r *analyzer.Report) {
	for _, name := range []string{"text", "markdown", "json"} {
		format, err := render.ParseFormat(name)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := render.Report(&buf, r, format, finding.SeverityInfo); err != nil {
			t.Errorf("rendering %s: %v", name, err)
		}
		if name == "json" && !json.Valid(buf.Bytes()) {
			t.Errorf("json report is not JSON: %s", buf.Bytes())
		}
	}
}

func push(t *testing.T, r *analyzer.Report, url string, bad chan string) {
	p, err := alertmanager.New(alertmanager.Options{URLs: []string{url}, MinSeverity: finding.SeverityInfo, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	p.Update(r)
	if err := p.PushOnce(context.Background()); err != nil {
		t.Errorf("pushing the report's alerts: %v", err)
	}
	select {
	case body := <-bad:
		t.Errorf("pushed alerts are not JSON: %s", body)
	default:
	}
}

// stateRoundTrip writes the history to a state file and reads it back: a
// file Load cannot read is moved aside, so it must still be there.
func stateRoundTrip(t *testing.T, h *history.History) {
	// Save syncs the file: on a busy disk that took seconds an input, so
	// the state goes to memory where there is a tmpfs.
	dir := t.TempDir()
	if shm, err := os.MkdirTemp("/dev/shm", "outputfuzz"); err == nil {
		dir = shm
		defer func() { _ = os.RemoveAll(shm) }() // a temporary directory
	}
	path := filepath.Join(dir, "state.json")
	if err := statefile.Save(path, h, nil, nil); err != nil {
		t.Errorf("saving the state: %v", err)
		return
	}
	loaded := statefile.Load(path, h.Limits, zap.NewNop())
	if _, err := os.Stat(path); err != nil || loaded == nil {
		t.Errorf("the state file written did not read back (moved aside: %v)", err)
		return
	}
	if got, want := len(loaded.Sizes), len(h.Sizes); got != want {
		t.Errorf("state file read back %d size series, wrote %d", got, want)
	}
}
