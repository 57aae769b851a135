package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"go.uber.org/zap"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/render"
	"github.com/partmon/partmon/statefile"
)

type reportFlags struct {
	common
	format      string
	minSeverity string
	timeout     time.Duration
	stateFile   string
}

func (r *reportFlags) register(cmd *kingpin.CmdClause) {
	r.common.register(cmd, "cluster", "console")
	cmd.Flag("format", "Output format: text, markdown or json.").Default("text").StringVar(&r.format)
	cmd.Flag("min-severity", "Lowest severity shown, and that makes the exit code non-zero: info, warning or critical.").Default("warning").StringVar(&r.minSeverity)
	durationVar(cmd, "timeout", "Bound on the whole collection.", "5m", &r.timeout)
	cmd.Flag("state.file", "Read the daemon's history (for growth forecasts) from this state file; it is not written.").StringVar(&r.stateFile)
}

func (r *reportFlags) run(stdout, stderr io.Writer) int {
	format, err := render.ParseFormat(r.format)
	if err != nil {
		fmt.Fprintf(stderr, "partmon: --format: %v\n", err)
		return exitUsage
	}
	minSev, err := finding.ParseSeverity(r.minSeverity)
	if err != nil || minSev == finding.SeverityNone {
		fmt.Fprintf(stderr, "partmon: --min-severity: want info, warning or critical, got %q\n", r.minSeverity)
		return exitUsage
	}
	r.scope = filesReport
	r.extra = func(cfg *Config) {
		if r.stateFile != "" {
			cfg.State.File = r.stateFile
		}
	}
	cfg, log, keyer, ok := configAndLogger(r.load, stderr)
	if !ok {
		return exitUsage
	}

	snap, failure := collectOnce(cfg, r.timeout, log, stderr)
	if failure != nil {
		if format == render.JSON {
			writeJSONFailure(stdout, failure)
		}
		return exitCollectFail
	}
	history := statefile.Load(cfg.State.File, cfg.Analysis.History, zap.NewNop())
	report := analyzer.Analyze(snap, history, cfg.Thresholds)
	report.Generated = time.Now()
	if cfg.Cluster != "" {
		report.Cluster = cfg.Cluster
	}
	keys.LearnFrom(keyer, snap)
	report = publish.Shown(keyer, report) // the one-shot's only output: keys as configured
	if err := render.Report(stdout, report, format, minSev); err != nil {
		fmt.Fprintf(stderr, "partmon: writing report: %v\n", err)
		return exitCollectFail
	}
	return exitCodeFor(report.Findings, minSev)
}

// exitCodeFor makes `partmon report` usable as a gate (render.ExitCode:
// the JSON summary carries the same code).
func exitCodeFor(findings []finding.Finding, minSev finding.Severity) int {
	return render.ExitCode(findings, minSev)
}

type collectFlags struct {
	common
	format  string
	timeout time.Duration
}

func (c *collectFlags) register(cmd *kingpin.CmdClause) {
	c.common.register(cmd, "cluster", "console")
	enumVar(cmd, "format", "Output format: json (the whole snapshot) or text (the status of every source).", "json", &c.format, "json", "text")
	durationVar(cmd, "timeout", "Bound on the whole collection.", "5m", &c.timeout)
}

func (c *collectFlags) run(stdout, stderr io.Writer) int {
	c.scope = filesReport
	cfg, log, keyer, ok := configAndLogger(c.load, stderr)
	if !ok {
		return exitUsage
	}
	snap, failure := collectOnce(cfg, c.timeout, log, stderr)
	if failure != nil {
		if c.format == "json" {
			writeJSONFailure(stdout, failure)
		}
		return exitCollectFail
	}
	keys.LearnFrom(keyer, snap)
	snap = keys.Redact(keyer, snap)
	if c.format == "text" {
		writeSourceTable(stdout, snap)
		return exitOK
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(snap); err != nil {
		fmt.Fprintf(stderr, "partmon: writing snapshot: %v\n", err)
		return exitCollectFail
	}
	return exitOK
}

// minRateSpan is the least time between a one-shot's two reads of the
// operation counters: shorter, and a few operations decide a rate.
const minRateSpan = 10 * time.Second

// collectFailure is why a one-shot collection learned nothing (exit 3);
// --format json prints it as the document.
type collectFailure struct {
	Error    string   `json:"error"`
	Hosts    []string `json:"hosts"`
	Problems []string `json:"problems,omitempty"`
	ExitCode int      `json:"exit_code"`
}

func writeJSONFailure(w io.Writer, f *collectFailure) {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(f)
}

// collectOnce runs one full collection. It fails (exit 3) only when nothing
// could be learned about the cluster; a source failing on one node is in the
// snapshot's statuses and the report says so.
func collectOnce(cfg Config, timeout time.Duration, log *zap.Logger, stderr io.Writer) (*model.Snapshot, *collectFailure) {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	coll, err := collector.New(cfg.Collector, log)
	if err != nil {
		fmt.Fprintf(stderr, "partmon: %v\n", err)
		return nil, &collectFailure{Error: err.Error(), Hosts: cfg.Collector.Hosts, ExitCode: exitCollectFail}
	}
	defer coll.Close()
	start := time.Now()
	fmt.Fprintf(stderr, "collecting from %v (%s mode)...\n", cfg.Collector.Hosts, cfg.Collector.Mode)
	collectErr := coll.CollectAll(ctx)
	snap := coll.Snapshot()
	if snap == nil || len(snap.Nodes) == 0 {
		var b strings.Builder
		writeNoRing(&b, cfg.Collector.Hosts, coll.NodeProblems(), snap)
		fmt.Fprint(stderr, b.String())
		lines := strings.Split(strings.TrimSpace(b.String()), "\n")
		f := &collectFailure{Error: strings.TrimPrefix(lines[0], "partmon: "), Hosts: cfg.Collector.Hosts, ExitCode: exitCollectFail}
		for _, l := range lines[1:] {
			f.Problems = append(f.Problems, strings.TrimSpace(l))
		}
		return nil, f
	}
	// A second sampler window, so that a hot key is graded at the lower of
	// two (one ten-second window is one draw of the traffic); it runs while
	// the rates below wait for their span.
	resampled := make(chan error, 1)
	go func() { resampled <- coll.SampleAgain(ctx) }()
	// Rates from counters, not from Cassandra's lagging moving rate: read the
	// counters again, at least minRateSpan after the first read.
	if wait := minRateSpan - time.Since(start); wait > 0 {
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
	}
	if err := <-resampled; err != nil {
		log.Warn("the hot-key samplers did not run a second window everywhere: those nodes' keys are graded on one", zap.Error(err))
	}
	if err := coll.RecollectRates(ctx); err != nil {
		log.Warn("operation counters not read a second time: rates are Cassandra's five-minute moving rates", zap.Error(err))
	}
	snap = coll.Snapshot()
	if collectErr != nil {
		log.Warn("collection incomplete", zap.Error(collectErr))
	}
	failed := 0
	for _, s := range snap.Sources {
		if s.State == model.StateError {
			failed++
		}
	}
	fmt.Fprintf(stderr, "collected %d nodes, %d keyspaces in %s; %d of %d source reads failed\n",
		len(snap.Nodes), len(snap.Schema.Keyspaces), time.Since(start).Round(time.Millisecond), failed, len(snap.Sources))
	return snap, nil
}

// writeNoRing says why no ring could be read: one line per node that could
// not be used, with the cause and what to check; without such a node (it
// answered, but with errors), each distinct source error once.
func writeNoRing(w io.Writer, hosts []string, problems []collector.NodeProblem, snap *model.Snapshot) {
	fmt.Fprintf(w, "partmon: could not read the ring from any of %v\n", hosts)
	for _, p := range problems {
		fmt.Fprintf(w, "  %s\n", p)
	}
	if len(problems) > 0 || snap == nil {
		return
	}
	seen := map[string]bool{}
	for _, s := range snap.Sources {
		if s.State != model.StateError || seen[s.Error] {
			continue
		}
		seen[s.Error] = true
		where := s.Source
		if s.Node != "" {
			where += " on " + s.Node
		}
		fmt.Fprintf(w, "  %s: %s\n", where, s.Error)
	}
}

func writeSourceTable(w io.Writer, snap *model.Snapshot) {
	sources := append([]model.SourceStatus(nil), snap.Sources...)
	sort.SliceStable(sources, func(i, j int) bool {
		if sources[i].Source != sources[j].Source {
			return sources[i].Source < sources[j].Source
		}
		return sources[i].Node < sources[j].Node
	})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "SOURCE\tNODE\tSTATE\tROWS\tDURATION\tDETAIL")
	for _, s := range sources {
		node := s.Node
		if node == "" {
			node = "(cluster)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\n", s.Source, node, s.State, s.Rows, s.Duration.Round(time.Millisecond), s.Error)
	}
	tw.Flush()
}
