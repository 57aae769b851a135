package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/partmon/partmon/tools/testkit"
)

// daemonSample is one real `partmon run` process: how long until /readyz/cycle (the first cycle done),
// its scrapes, and its peak resident memory (VmHWM) after them.
type daemonSample struct {
	ready     time.Duration
	scrapes   []time.Duration // full gzip-encoded /metrics responses, as Prometheus asks
	gzipBytes int
	bytes     int
	series    seriesCount
	signals   map[string]bool // partition signals the exposition carries
	peakKiB   int64
	rssKiB    int64
}

// runDaemon starts `partmon run` in sidecar mode for host, waits until it
// is ready, scrapes /metrics `scrapes` times (spread over `life`), reads
// VmHWM and stops it with SIGTERM.
func runDaemon(ctx context.Context, bin, host string, scrapes int, life time.Duration) (daemonSample, error) {
	var d daemonSample
	addr, err := testkit.PickFreeAddr()
	if err != nil {
		return d, err
	}
	cmd := exec.Command(bin, "run", "--hosts", host, "--mode", "sidecar", "--web.listen-address", addr, "--log.level", "warn")
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM} // never outlive the benchmark
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return d, fmt.Errorf("starting %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case _ = <-exited: // stopped by SIGTERM: its exit status says only that
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			_ = <-exited // killed: its exit error says only that
		}
	}
	defer stop()

	base := "http://" + addr
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	for {
		if resp, err := client.Get(base + "/readyz/cycle"); err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			exited <- err
			return d, fmt.Errorf("partmon run exited before it was ready (%v): %s", err, tail(logs.String()))
		case <-ctx.Done():
			return d, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Since(start) > 5*time.Minute {
			return d, fmt.Errorf("partmon run not ready after 5 minutes: %s", tail(logs.String()))
		}
	}
	d.ready = time.Since(start)

	gap := time.Duration(0)
	if scrapes > 1 {
		gap = life / time.Duration(scrapes-1)
	}
	var body []byte
	for i := 0; i < scrapes; i++ {
		if i > 0 && gap > 0 {
			select {
			case <-time.After(gap):
			case <-ctx.Done():
				return d, ctx.Err()
			}
		}
		took, gz, err := scrape(client, base+"/metrics")
		if err != nil {
			return d, err
		}
		d.scrapes = append(d.scrapes, took)
		d.gzipBytes = len(gz)
		if body, err = gunzip(gz); err != nil {
			return d, fmt.Errorf("decoding /metrics: %w", err)
		}
	}
	d.bytes, d.series = len(body), countSeries(body)
	d.signals = signalsIn(body, func(s partitionSignal) *regexp.Regexp { return s.partmon })
	d.peakKiB, d.rssKiB, err = memoryKiB(cmd.Process.Pid)
	return d, err
}

// scrape GETs url as Prometheus does (gzip) and times the whole response.
func scrape(client *http.Client, url string) (time.Duration, []byte, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4;q=1,*/*;q=0.1")
	req.Header.Set("Accept-Encoding", "gzip")
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("scraping %s: %w", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	took := time.Since(start)
	if err != nil {
		return 0, nil, fmt.Errorf("scraping %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		return 0, nil, fmt.Errorf("scraping %s: status %s", url, resp.Status)
	}
	if resp.Header.Get("Content-Encoding") != "gzip" {
		return 0, nil, fmt.Errorf("scraping %s: response not gzip-encoded", url)
	}
	return took, body, nil
}

func gunzip(b []byte) ([]byte, error) {
	r, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(r)
}

// memoryKiB reads the peak (VmHWM) and current (VmRSS) resident set of pid.
func memoryKiB(pid int) (peak, rss int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, fmt.Errorf("reading partmon's memory: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		v, convErr := strconv.ParseInt(fields[1], 10, 64)
		switch fields[0] {
		case "VmHWM:":
			peak, err = v, convErr
		case "VmRSS:":
			rss = v
		}
	}
	if peak == 0 && err == nil {
		err = errors.New("no VmHWM in /proc status")
	}
	return peak, rss, err
}

// oneShot times `partmon report` in sidecar mode: process start, connect,
// probe, collect, analyze, print, exit; exit codes 1 and 2 only say there
// are findings.
func oneShot(ctx context.Context, bin, host string) (time.Duration, error) {
	cmd := exec.CommandContext(ctx, bin, "report", "--hosts", host, "--mode", "sidecar", "--format", "json", "--log.level", "error")
	var errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &errOut
	start := time.Now()
	err := cmd.Run()
	took := time.Since(start)
	var exit *exec.ExitError
	if errors.As(err, &exit) && (exit.ExitCode() == 1 || exit.ExitCode() == 2) {
		err = nil
	}
	if err != nil {
		return took, fmt.Errorf("partmon report: %w: %s", err, tail(errOut.String()))
	}
	return took, nil
}

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 800 {
		s = "..." + s[len(s)-800:]
	}
	return s
}
