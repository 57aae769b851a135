package main

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

var client = &http.Client{Timeout: 60 * time.Second}

// promQuery runs an instant query on a Prometheus API and returns how many
// series it returned, the value of the first, and how long it took.
func promQuery(base, expr string) (int, float64, time.Duration, error) {
	start := time.Now()
	resp, err := client.PostForm(base+"/api/v1/query", url.Values{"query": {expr}})
	if err != nil {
		return 0, 0, 0, err
	}
	defer resp.Body.Close()
	var body struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			ResultType string          `json:"resultType"`
			Result     json.RawMessage `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, 0, 0, fmt.Errorf("query %s: %w", expr, err)
	}
	took := time.Since(start)
	if body.Status != "success" {
		return 0, 0, took, fmt.Errorf("%s", body.Error)
	}
	switch body.Data.ResultType {
	case "vector":
		var v []struct {
			Value [2]any `json:"value"`
		}
		if err := json.Unmarshal(body.Data.Result, &v); err != nil {
			return 0, 0, took, err
		}
		if len(v) == 0 {
			return 0, 0, took, nil
		}
		f, _ := strconv.ParseFloat(fmt.Sprint(v[0].Value[1]), 64)
		return len(v), f, took, nil
	case "scalar":
		return 1, 0, took, nil
	}
	var v []json.RawMessage
	err = json.Unmarshal(body.Data.Result, &v)
	return len(v), 0, took, err
}

// scrape reads a Prometheus text exposition.
func scrape(u string) (map[string]*dto.MetricFamily, error) {
	resp, err := client.Get(u)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	p := expfmt.NewTextParser(model.LegacyValidation)
	return p.TextToMetricFamilies(resp.Body)
}

// scrapeSum sums each named family over every URL's /metrics: a store of
// several ingesting processes (each with its own TSDB heads, one per
// tenant) holds their sum.
func scrapeSum(urls []string, names ...string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, u := range urls {
		fams, err := scrape(u)
		if err != nil {
			return nil, err
		}
		for _, n := range names {
			out[n] += value(fams, n, nil)
		}
	}
	return out, nil
}

// value is a family's value for the series whose labels include match
// (gauge, counter or untyped), summed over the matching series.
func value(fams map[string]*dto.MetricFamily, name string, match map[string]string) float64 {
	f := fams[name]
	if f == nil {
		return 0
	}
	sum := 0.0
	for _, m := range f.Metric {
		if !hasLabels(m, match) {
			continue
		}
		switch {
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Untyped != nil:
			sum += m.Untyped.GetValue()
		}
	}
	return sum
}

func hasLabels(m *dto.Metric, match map[string]string) bool {
	have := map[string]string{}
	for _, l := range m.Label {
		have[l.GetName()] = l.GetValue()
	}
	for k, v := range match {
		if have[k] != v {
			return false
		}
	}
	return true
}

// rssBytes is a process's resident memory from /proc.
func rssBytes(pid int) float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			return kb * 1024
		}
	}
	return 0
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) float64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				total += info.Size()
			}
		}
		return nil
	})
	return float64(total)
}

// activeAlerts are Alertmanager's unsilenced alerts, the ones an inhibition
// mutes with Status.State "suppressed".
func activeAlerts(base string) ([]Alert, error) {
	resp, err := client.Get(base + "/api/v2/alerts?active=true&silenced=false&inhibited=true")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var alerts []Alert
	if err := json.Unmarshal(b, &alerts); err != nil {
		return nil, fmt.Errorf("alertmanager alerts: %w: %s", err, b)
	}
	return alerts, nil
}

// vmalertRules is what vmalert's /api/v1/rules says of each group.
type vmalertGroup struct {
	Name     string  `json:"name"`
	Interval float64 `json:"interval"`
	Rules    []struct {
		Name        string `json:"name"`
		Type        string `json:"type"` // recording or alerting
		Health      string `json:"health"`
		LastError   string `json:"lastError"`
		LastSamples int    `json:"lastSamples"`
	} `json:"rules"`
}

// unrecorded names the recording rules whose last evaluation recorded nothing.
func unrecorded(groups []vmalertGroup) []string {
	var out []string
	for _, g := range groups {
		for _, r := range g.Rules {
			if r.Type == "recording" && r.LastSamples == 0 {
				out = append(out, r.Name)
			}
		}
	}
	return out
}

func vmalertGroups(base string) ([]vmalertGroup, error) {
	resp, err := client.Get(base + "/api/v1/rules")
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var body struct {
		Data struct {
			Groups []vmalertGroup `json:"groups"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("vmalert rules: %w", err)
	}
	return body.Data.Groups, nil
}
