package promtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/tools/testkit"
)

// Alertmanager is a running real Alertmanager.
type Alertmanager struct {
	URL     string // http://127.0.0.1:PORT
	Process *Process

	t      testing.TB
	opts   Options
	config string // path of its alertmanager.yml
	listen string
	starts int
}

// StartAlertmanager runs Debian's prometheus-alertmanager with config (an
// alertmanager.yml body) on a free loopback port, without clustering, and
// waits until it is ready.
func StartAlertmanager(t testing.TB, config string, opts Options) *Alertmanager {
	t.Helper()
	cfgPath := filepath.Join(t.TempDir(), "alertmanager.yml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	listen := testkit.FreeAddr(t)
	am := &Alertmanager{URL: "http://" + listen, t: t, opts: opts, config: cfgPath, listen: listen}
	am.start()
	return am
}

// Restart kills Alertmanager (SIGKILL, as a crash) if it still runs and
// starts a new one on the same address and configuration, with empty
// storage: it knows only the alerts sent to it after the restart.
func (a *Alertmanager) Restart() {
	a.t.Helper()
	a.Process.Stop()
	a.start()
}

func (a *Alertmanager) start() {
	a.t.Helper()
	bin := LookPath(a.t, "Debian package prometheus-alertmanager", "prometheus-alertmanager", "alertmanager")
	a.starts++
	name := "alertmanager"
	if a.starts > 1 {
		name = fmt.Sprintf("alertmanager-%d", a.starts)
	}
	a.Process = Start(a.t, name, a.opts, bin, "--config.file="+a.config, "--storage.path="+filepath.Join(a.t.TempDir(), "data"),
		"--web.listen-address="+a.listen, "--cluster.listen-address=", "--log.level=warn")
	waitReady(a.t, a.Process, a.URL+"/-/ready", 30*time.Second)
}

// Alert is one alert as GET /api/v2/alerts returns it (gettableAlert).
type Alert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	UpdatedAt    time.Time         `json:"updatedAt"`
	GeneratorURL string            `json:"generatorURL"`
	Status       struct {
		State       string   `json:"state"` // active, suppressed, unprocessed
		InhibitedBy []string `json:"inhibitedBy"`
		SilencedBy  []string `json:"silencedBy"`
	} `json:"status"`
}

// Alerts lists the alerts Alertmanager holds that have not ended (its API
// leaves resolved alerts out).
func (a *Alertmanager) Alerts() ([]Alert, error) {
	resp, err := apiClient.Get(a.URL + "/api/v2/alerts")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return nil, fmt.Errorf("GET /api/v2/alerts: %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	var out []Alert
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return nil, fmt.Errorf("decoding /api/v2/alerts: %w", err)
	}
	return out, nil
}

// Post sends alerts (postableAlert objects) to POST /api/v2/alerts.
func (a *Alertmanager) Post(alerts any) error {
	body, err := json.Marshal(alerts)
	if err != nil {
		return err
	}
	resp, err := apiClient.Post(a.URL+"/api/v2/alerts", "application/json", bytes.NewReader(body))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return fmt.Errorf("posting alerts: %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	return nil
}
