package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/partmon/partmon/tools/testcluster"
)

// The peer as most users run it: jmx_exporter's javaagent inside the
// measured node's JVM (`deploy/local/cluster up --javaagent JAR=CONFIG`).
// Its scrape's CPU is the node's own, so the node's CPU over a scrape, less
// the node's idle rate over the same wall time, is what the scrape costs.
// One agent per JVM (a second copy would share the first's registry), so
// the configurations take turns in the one file the agent reads: jmx_exporter
// reloads its configuration when the file's mtime changes, at the next
// scrape, which the bench makes unmeasured.

//go:embed jmx_exporter_pertable.yml
var agentPerTableConfig []byte

// agentConfig is one configuration of the agent; marker is a metric only
// it exports (how the bench knows the agent reloaded), or "" for none, in
// which case pertableMarker must be absent.
type agentConfig struct {
	key, name string
	body      []byte
	marker    string
}

const pertableMarker = "cassandra_table_sstablesperreadhistogram_99thpercentile"

var agentConfigs = []agentConfig{
	{key: "agent_example", name: "upstream example", body: jmxExporterConfig},
	{key: "agent_pertable", name: "partmon's per-table signals", body: agentPerTableConfig, marker: pertableMarker},
}

// agentIntervals are the scrape intervals the per-minute figures assume.
var agentIntervals = []time.Duration{15 * time.Second, 30 * time.Second, 60 * time.Second}

// agentResult is the javaagent at one table count, per configuration key.
type agentResult struct {
	Version string                        `json:"version"`
	Configs map[string]*agentConfigResult `json:"configs"`
	Skipped string                        `json:"skipped,omitempty"`
}

type agentConfigResult struct {
	Scrape      []float64       `json:"scrape_ms"`
	Bytes       int             `json:"scrape_bytes"`
	Gzip        int             `json:"scrape_gzip_bytes"`
	Series      int             `json:"series"`
	TableSeries int             `json:"per_table_series"`
	Signals     map[string]bool `json:"signals"`
}

type agentPeer struct {
	url, config, current string
	client               *http.Client
}

var agentJarVersion = regexp.MustCompile(`jmx_prometheus_javaagent-([0-9][^/]*)\.jar$`)

// startAgent finds the agent the cluster was started with (cluster.env
// JAVAAGENT); none means not measured.
func startAgent(c *benchCluster, r *stageResult, o options) (*agentPeer, error) {
	env, err := testcluster.EnvAt(c.dir)
	if err != nil {
		return nil, err
	}
	jar, cfg, ok := strings.Cut(env["JAVAAGENT"], "=")
	if !ok || !strings.Contains(filepath.Base(jar), "jmx_prometheus_javaagent") {
		r.Agent = &agentResult{Skipped: "the cluster runs no jmx_prometheus_javaagent (cluster up --javaagent JAR=CONFIG)"}
		return nil, nil
	}
	version := "unknown"
	if m := agentJarVersion.FindStringSubmatch(jar); m != nil {
		version = m[1]
	}
	r.Agent = &agentResult{Version: version, Configs: map[string]*agentConfigResult{}}
	a := &agentPeer{url: "http://" + c.hosts[o.node-1] + ":9404/metrics", config: cfg,
		client: &http.Client{Timeout: jmxScrapeTimeout, Transport: &http.Transport{DisableCompression: true}}}
	logf("jmx_exporter javaagent %s at %s, configuration file %s", version, a.url, cfg)
	return a, nil
}

// use puts cfg in the agent's file and scrapes until the agent serves it.
func (a *agentPeer) use(cfg agentConfig) error {
	if a.current == cfg.key {
		return nil
	}
	if err := os.WriteFile(a.config, cfg.body, 0o644); err != nil {
		return fmt.Errorf("javaagent configuration: %w", err)
	}
	for try := 0; try < 5; try++ {
		_, gz, err := scrape(a.client, a.url)
		if err != nil {
			return fmt.Errorf("javaagent: %w", err)
		}
		body, err := gunzip(gz)
		if err != nil {
			return err
		}
		if bytes.Contains(body, []byte("\n"+pertableMarker+"{")) == (cfg.marker != "") {
			a.current = cfg.key
			return nil
		}
		// Same mtime as the last load (a coarse clock): touch it later.
		time.Sleep(time.Second)
		now := time.Now()
		_ = os.Chtimes(a.config, now, now)
	}
	return fmt.Errorf("javaagent: %s not loaded after 5 scrapes (its log is the node's stdout.log)", cfg.name)
}

// scrapeAgent is one measured scrape of each configuration.
func scrapeAgent(a *agentPeer, r *stageResult) error {
	if a == nil {
		return nil
	}
	for _, cfg := range agentConfigs {
		if err := a.use(cfg); err != nil {
			return err
		}
		var took time.Duration
		var gz []byte
		nc, err := r.idle.measure(func() (float64, error) {
			var err error
			took, gz, err = scrape(a.client, a.url)
			return 0, err // the agent's own CPU is the node's
		})
		if err != nil {
			return fmt.Errorf("javaagent (%s): %w", cfg.name, err)
		}
		body, err := gunzip(gz)
		if err != nil {
			return err
		}
		res := r.Agent.Configs[cfg.key]
		if res == nil {
			res = &agentConfigResult{}
			r.Agent.Configs[cfg.key] = res
		}
		r.Cost[cfg.key] = append(r.Cost[cfg.key], nc)
		res.Scrape = append(res.Scrape, ms(took))
		res.Bytes, res.Gzip, res.Series = len(body), len(gz), countSeries(body).total
		res.TableSeries = tableSeries(body)
		res.Signals = signalsIn(body, func(s partitionSignal) *regexp.Regexp { return s.jmx })
	}
	return nil
}

var agentTableLine = regexp.MustCompile(`(?m)^cassandra_(table|columnfamily)_\w*\{`)

// tableSeries counts the per-table series (Table or ColumnFamily metrics).
func tableSeries(body []byte) int { return len(agentTableLine.FindAllIndex(body, -1)) }

// costAgentIdle is a window of the same length with no scrape, just before.
const costAgentIdle = "agent_window_unscraped"

// agentWindows measures the node's CPU over a window without a scrape,
// then, once per configuration and interval, over a window as long with the
// agent scraped every interval: the difference, per minute, is what the
// scrapes cost, measured directly as a check of per scrape × rate.
// The windows are long: they run at the largest table count only.
func agentWindows(ctx context.Context, a *agentPeer, r *stageResult, o options) error {
	window := o.agentWindow
	if a == nil || window <= 0 || r.UserTables != o.tables[len(o.tables)-1] {
		return nil
	}
	nc, err := r.idle.measure(func() (float64, error) { return 0, scrapeEvery(ctx, nil, 0, window) })
	if err != nil {
		return err
	}
	r.Cost[costAgentIdle] = append(r.Cost[costAgentIdle], nc)
	for _, cfg := range agentConfigs {
		if err := a.use(cfg); err != nil {
			return err
		}
		for _, every := range agentIntervals {
			nc, err := r.idle.measure(func() (float64, error) {
				return 0, scrapeEvery(ctx, a, every, window)
			})
			if err != nil {
				return fmt.Errorf("javaagent (%s) every %s: %w", cfg.name, every, err)
			}
			key := agentWindowKey(cfg.key, every)
			r.Cost[key] = append(r.Cost[key], nc)
			logf("javaagent %s scraped every %s for %s: node CPU %.2f s", cfg.name, every, window, nc.CPU)
		}
	}
	return nil
}

func agentWindowKey(cfg string, every time.Duration) string {
	return fmt.Sprintf("%s_window_%s", cfg, every)
}

// scrapeEvery scrapes at 0, every, 2×every, … within window (none if a is
// nil), then waits out the window.
func scrapeEvery(ctx context.Context, a *agentPeer, every, window time.Duration) error {
	end := time.Now().Add(window)
	for next := time.Now(); a != nil && next.Before(end); next = next.Add(every) {
		select {
		case <-time.After(time.Until(next)):
		case <-ctx.Done():
			return ctx.Err()
		}
		if _, _, err := scrape(a.client, a.url); err != nil {
			return err
		}
	}
	select {
	case <-time.After(time.Until(end)):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
