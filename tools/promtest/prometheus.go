package promtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/partmon/partmon/tools/testkit"
)

// Prometheus is a running real Prometheus server.
type Prometheus struct {
	URL     string // http://127.0.0.1:PORT
	Process *Process
}

// StartPrometheus runs Debian's prometheus with config (a prometheus.yml
// body) on a free loopback port, with a fresh TSDB, and waits until it is
// ready. Paths in config must be absolute. Its external URL (alerts'
// generatorURL) is the loopback address, not the host name.
func StartPrometheus(t testing.TB, config string, opts Options) *Prometheus {
	t.Helper()
	bin := LookPath(t, "Debian package prometheus; .ci/run installs it", "prometheus")
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(cfgPath, []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	listen := testkit.FreeAddr(t)
	p := Start(t, "prometheus", opts, bin, "--config.file="+cfgPath,
		"--storage.tsdb.path="+filepath.Join(dir, "data"), "--web.listen-address="+listen, "--web.external-url=http://"+listen, "--log.level=warn")
	prom := &Prometheus{URL: "http://" + listen, Process: p}
	waitReady(t, p, prom.URL+"/-/ready", 60*time.Second)
	return prom
}

// waitReady polls url until it answers 200, failing at once if p exits.
func waitReady(t testing.TB, p *Process, url string, timeout time.Duration) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Second}
	WaitFor(t, timeout, p.Name+" ready at "+url, func() bool {
		if exited, err := p.Exited(); exited {
			t.Fatalf("%s exited before it was ready: %v\n%s", p.Name, err, p.Output())
		}
		resp, err := client.Get(url)
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
}

// APIResponse is the envelope of every Prometheus HTTP API answer.
type APIResponse struct {
	Status    string          `json:"status"`
	Error     string          `json:"error"`
	ErrorType string          `json:"errorType"`
	Data      json.RawMessage `json:"data"`
}

var apiClient = &http.Client{Timeout: 30 * time.Second}

// Get calls a Prometheus API path (/api/v1/...) and returns its data, or an
// error when the request or the API call failed.
func (p *Prometheus) Get(path string, params url.Values) (APIResponse, error) {
	resp, err := apiClient.Get(p.URL + path + "?" + params.Encode())
	if err != nil {
		return APIResponse{}, err
	}
	defer resp.Body.Close()
	var r APIResponse
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		return APIResponse{}, fmt.Errorf("decoding %s: %w", path, err)
	}
	if r.Status != "success" {
		return r, fmt.Errorf("%s: %s: %s", r.ErrorType, path, r.Error)
	}
	return r, nil
}

// Sample is one series of an instant vector.
type Sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// QueryVector runs an instant query that returns a vector.
func (p *Prometheus) QueryVector(expr string) ([]Sample, error) {
	r, err := p.Get("/api/v1/query", url.Values{"query": {expr}})
	if err != nil {
		return nil, err
	}
	var data struct {
		ResultType string   `json:"resultType"`
		Result     []Sample `json:"result"`
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		return nil, fmt.Errorf("decoding the result of %s: %w", expr, err)
	}
	if data.ResultType != "vector" {
		return nil, fmt.Errorf("%s returned a %s, not a vector", expr, data.ResultType)
	}
	return data.Result, nil
}

// Query runs an instant query and returns the number of series or samples it
// gave (1 for a scalar).
func (p *Prometheus) Query(expr string) (int, error) {
	r, err := p.Get("/api/v1/query", url.Values{"query": {expr}})
	if err != nil {
		return 0, err
	}
	var data struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		return 0, err
	}
	if data.ResultType == "scalar" {
		return 1, nil
	}
	var series []json.RawMessage
	if err := json.Unmarshal(data.Result, &series); err != nil {
		return 0, err
	}
	return len(series), nil
}

// RuleState is one loaded rule as /api/v1/rules reports it.
type RuleState struct {
	Group     string
	Name      string            `json:"name"`
	Health    string            `json:"health"`
	LastError string            `json:"lastError"`
	Labels    map[string]string `json:"labels"`
	State     string            `json:"state"` // alerting rules: inactive, pending, firing
}

// Rules lists the loaded rules in file order.
func (p *Prometheus) Rules() ([]RuleState, error) {
	r, err := p.Get("/api/v1/rules", nil)
	if err != nil {
		return nil, err
	}
	var data struct {
		Groups []struct {
			Name  string      `json:"name"`
			Rules []RuleState `json:"rules"`
		} `json:"groups"`
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		return nil, fmt.Errorf("decoding /api/v1/rules: %w", err)
	}
	var out []RuleState
	for _, g := range data.Groups {
		for _, rule := range g.Rules {
			rule.Group = g.Name
			out = append(out, rule)
		}
	}
	return out, nil
}

// FiringAlert is one alert as /api/v1/alerts reports it.
type FiringAlert struct {
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	State       string            `json:"state"`
	Value       string            `json:"value"`
}

// Alerts lists the pending and firing alerts.
func (p *Prometheus) Alerts() ([]FiringAlert, error) {
	r, err := p.Get("/api/v1/alerts", nil)
	if err != nil {
		return nil, err
	}
	var data struct {
		Alerts []FiringAlert `json:"alerts"`
	}
	if err := json.Unmarshal(r.Data, &data); err != nil {
		return nil, fmt.Errorf("decoding /api/v1/alerts: %w", err)
	}
	return data.Alerts, nil
}
