package main

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"time"

	"github.com/partmon/partmon/tools/testkit"
)

// jmxExporterConfig is upstream's Cassandra example in the project's words
// (see the file's header for the upstream commit).
//
//go:embed jmx_exporter_cassandra.yml
var jmxExporterConfig []byte

// jmxExporterVersion is the standalone exporter measured: Maven Central
// io.prometheus.jmx:jmx_prometheus_httpserver (scripts/bench.sh fetches it).
const jmxExporterVersion = "0.20.0"

// jmxExporter is one running jmx_prometheus_httpserver pointed at a node.
type jmxExporter struct {
	cmd    *exec.Cmd
	url    string
	logs   bytes.Buffer
	exited chan error
	client *http.Client
}

// startJMXExporter starts the standalone exporter (a JVM of its own, with
// the JVM's default heap, as users run it) against the JMX port on
// 127.0.0.1, and waits until it listens. Its first scrape is the cold one.
// jmxScrapeTimeout bounds one jmx_exporter scrape (--jmx-timeout).
var jmxScrapeTimeout = 5 * time.Minute

func startJMXExporter(ctx context.Context, jar, dir string, jmxPort int) (*jmxExporter, error) {
	if _, err := os.Stat(jar); err != nil {
		return nil, fmt.Errorf("jmx_exporter jar: %w (scripts/bench.sh fetches it with Maven)", err)
	}
	cfg := filepath.Join(dir, "jmx_exporter_cassandra.yml")
	body := append([]byte(fmt.Sprintf("hostPort: 127.0.0.1:%d\n", jmxPort)), jmxExporterConfig...)
	if err := os.WriteFile(cfg, body, 0o644); err != nil {
		return nil, err
	}
	addr, err := testkit.PickFreeAddr()
	if err != nil {
		return nil, err
	}
	e := &jmxExporter{url: "http://" + addr + "/metrics", exited: make(chan error, 1),
		client: &http.Client{Timeout: jmxScrapeTimeout, Transport: &http.Transport{DisableCompression: true}}}
	e.cmd = exec.Command("java", "-jar", jar, addr, cfg)
	e.cmd.Stdout, e.cmd.Stderr = &e.logs, &e.logs
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := e.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting jmx_exporter: %w", err)
	}
	go func() { e.exited <- e.cmd.Wait() }()
	for start := time.Now(); ; {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close() // only a probe that the port is open
			return e, nil
		}
		select {
		case err := <-e.exited:
			return nil, fmt.Errorf("jmx_exporter exited (%v): %s", err, tail(e.logs.String()))
		case <-ctx.Done():
			e.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Since(start) > 2*time.Minute {
			e.stop()
			return nil, fmt.Errorf("jmx_exporter not listening after 2 minutes: %s", tail(e.logs.String()))
		}
	}
}

func (e *jmxExporter) pid() int { return e.cmd.Process.Pid }

// scrape is one gzip-encoded scrape, as Prometheus asks, with the series it
// returned and the exporter's own CPU seconds.
func (e *jmxExporter) scrape() (took time.Duration, body []byte, gzipBytes int, cpu float64, err error) {
	before, err := cpuSeconds(e.pid())
	if err != nil {
		return 0, nil, 0, 0, err
	}
	took, gz, err := scrape(e.client, e.url)
	if err != nil {
		return took, nil, 0, 0, fmt.Errorf("jmx_exporter: %w: %s", err, tail(e.logs.String()))
	}
	after, err := cpuSeconds(e.pid())
	if err != nil {
		return took, nil, 0, 0, err
	}
	body, err = gunzip(gz)
	return took, body, len(gz), after - before, err
}

// stop ends the exporter's JVM (SIGTERM, then SIGKILL after 20 s).
func (e *jmxExporter) stop() {
	if e.cmd.ProcessState != nil {
		return
	}
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case _ = <-e.exited: // stopped by SIGTERM: its exit status says only that
	case <-time.After(20 * time.Second):
		_ = e.cmd.Process.Kill()
		_ = <-e.exited // killed: its exit error says only that
	}
}

// partitionSignal is one partition-level signal and the series that carry
// it in each exporter's output; presence is read from the scraped text, by
// metric name (or, for keys, a key label), never by label values: the
// thread pool named Sampler is not a sampler's output.
type partitionSignal struct {
	Name    string
	partmon *regexp.Regexp
	jmx     *regexp.Regexp
	// note says where the signal needs more than the default configuration.
	note string
}

var partitionSignals = []partitionSignal{
	{Name: "largest partition per table and node", partmon: regexp.MustCompile(`^partmon_table_max_partition_size_bytes\{`),
		jmx: regexp.MustCompile(`(?i)^cassandra_(table|columnfamily)_(maxpartitionsize|estimatedpartitionsizehistogram)`)},
	{Name: "partition keys (which key)", partmon: regexp.MustCompile(`^partmon_partition_\w+\{.*partition_key="`),
		jmx:  regexp.MustCompile(`[{,]partition_?key="`),
		note: "partmon: keys from system.top_partitions (4.1+, filled by repair) and the sampler"},
	{Name: "tombstones per read", partmon: regexp.MustCompile(`^partmon_table_tombstones_per_read_p99\{`),
		jmx: regexp.MustCompile(`(?i)^cassandra_(table|columnfamily)_tombstonescanned`)},
	{Name: "ownership per node and keyspace", partmon: regexp.MustCompile(`^partmon_node_ownership_ratio\{`),
		jmx: regexp.MustCompile(`(?i)^cassandra_storage_\w*own\w*[{ ]`)},
	{Name: "traffic skew per table and node", partmon: regexp.MustCompile(`^partmon_table_traffic_skew_ratio\{`),
		jmx:  regexp.MustCompile(`(?i)^\w*skew\w*[{ ]`),
		note: "partmon: only where a node's share can differ from its ownership (RF < nodes); the benchmark runs RF 3 on 3 nodes"},
	{Name: "hot keys", partmon: regexp.MustCompile(`^partmon_partition_operations_share_ratio\{`),
		jmx:  regexp.MustCompile(`(?i)^\w*(toppartition|hotkey|sampler)\w*[{ ]`),
		note: "partmon: with collector.nodetool_sampler (the benchmark's partmon run has none; the sampler pass is measured apart)"},
}

// signalsIn says which signals a scraped body carries.
func signalsIn(body []byte, pick func(partitionSignal) *regexp.Regexp) map[string]bool {
	out := map[string]bool{}
	for _, line := range bytes.Split(body, []byte("\n")) {
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		for _, s := range partitionSignals {
			if pick(s).Match(line) {
				out[s.Name] = true
			}
		}
	}
	return out
}
