package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/keyadvice"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/render"
	"github.com/partmon/partmon/web"
)

const adviseHelp = "Judge a table's partition key and candidate keys from a bounded sample of its rows " +
	"(whole partitions from random token ranges at LOCAL_ONE, paced, never a full scan; docs/detection.md#key-advisor). " +
	"Exit 0 advised, 3 the sample failed, 4 bad input."

type adviseFlags struct {
	common
	table   string
	keys    []string
	format  string
	timeout time.Duration
	lim     model.SampleLimits
}

func (a *adviseFlags) register(cmd *kingpin.CmdClause) {
	a.common.register(cmd, "cluster", "console")
	d := collector.DefaultSampleLimits()
	cmd.Flag("table", "The table to judge, keyspace.table.").Required().StringVar(&a.table)
	cmd.Flag("key", `A candidate primary key as CQL writes it, repeatable: "(a, b)", "((a, bucket(ts, 1d)), ts)". The current key is always judged.`).StringsVar(&a.keys)
	cmd.Flag("format", "Output format: text, markdown or json.").Default("text").StringVar(&a.format)
	durationVar(cmd, "timeout", "Bound on the whole sample.", "5m", &a.timeout)
	cmd.Flag("rows-per-second", "Rows the sampler reads a second at most.").Default(fmt.Sprint(d.RowsPerSecond)).Float64Var(&a.lim.RowsPerSecond)
	cmd.Flag("max-rows", "Rows the sampler reads in all at most.").Default(fmt.Sprint(d.MaxRows)).Int64Var(&a.lim.MaxRows)
	cmd.Flag("max-ring-share", "Share of the token ring the sampler reads at most, 0..1.").Default(fmt.Sprint(d.MaxRingShare)).Float64Var(&a.lim.MaxRingShare)
	cmd.Flag("partitions", "Whole partitions the sampler aims for.").Default(fmt.Sprint(d.Partitions)).IntVar(&a.lim.Partitions)
}

func (a *adviseFlags) run(stdout, stderr io.Writer) int {
	format, err := render.ParseFormat(a.format)
	if err != nil {
		fmt.Fprintf(stderr, "partmon: --format: %v\n", err)
		return exitUsage
	}
	if a.lim.MaxRingShare <= 0 || a.lim.MaxRingShare > 1 || a.lim.RowsPerSecond <= 0 || a.lim.MaxRows <= 0 || a.lim.Partitions <= 0 {
		fmt.Fprintln(stderr, "partmon: --rows-per-second, --max-rows and --partitions must be above 0, --max-ring-share in (0, 1]")
		return exitUsage
	}
	cfg, log, keyer, ok := configAndLogger(a.load, stderr)
	if !ok {
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	coll, err := collector.New(cfg.Collector, log)
	if err != nil {
		fmt.Fprintf(stderr, "partmon: %v\n", err)
		return exitUsage
	}
	defer coll.Close()
	adv, err := adviseTable(ctx, coll, cfg, keyer, a.table, a.keys, a.lim)
	if err != nil {
		fmt.Fprintf(stderr, "partmon: %v\n", err)
		if errors.As(err, new(badAdviseInput)) {
			return exitUsage
		}
		return exitCollectFail
	}
	if err := render.KeyDesign(stdout, adv, format); err != nil {
		fmt.Fprintf(stderr, "partmon: writing the advice: %v\n", err)
		return exitCollectFail
	}
	return exitOK
}

// badAdviseInput is a request the advisor refuses before sampling, or a
// key the sampled table cannot have.
type badAdviseInput struct{ error }

func (badAdviseInput) BadInput() bool { return true }

func (e badAdviseInput) Unwrap() error { return e.error }

// adviseFunc is the daemon's /api/v1/advise, nil unless --advise.enabled.
func (d *daemon) adviseFunc() web.AdviseFunc {
	if !d.cfg.Web.AdviseEnabled {
		return nil
	}
	return func(ctx context.Context, table string, candidates []string) (*keyadvice.Advice, error) {
		return adviseTable(ctx, d.collector, d.cfg, d.keys, table, candidates, collector.DefaultSampleLimits())
	}
}

// adviseTable samples table ("keyspace.table") and projects its current
// key and candidates on it; the command and the daemon's API share it.
// Keys leave it as keys.mode shows them.
func adviseTable(ctx context.Context, coll *collector.Collector, cfg Config, keyer *keys.Keyer, table string, candidates []string, lim model.SampleLimits) (*keyadvice.Advice, error) {
	ks, tbl, ok := strings.Cut(table, ".")
	if !ok || ks == "" || tbl == "" {
		return nil, badAdviseInput{fmt.Errorf("--table %q: want keyspace.table", table)}
	}
	var parsed []keyadvice.Key
	for _, c := range candidates {
		k, err := keyadvice.ParseKey(c)
		if err != nil {
			return nil, badAdviseInput{err}
		}
		parsed = append(parsed, k)
	}
	check := func(cols []model.SampleColumn) error {
		for _, k := range parsed {
			if err := k.Check(cols, collector.PrimitiveType); err != nil {
				return badAdviseInput{err}
			}
		}
		return nil
	}
	sample, err := coll.SampleKeys(ctx, ks, tbl, lim, int(cfg.Thresholds.PartitionRowsWarning), check)
	if err != nil {
		return nil, err
	}
	return keyadvice.Advise(sample, parsed, keyadvice.Options{Thresholds: cfg.Thresholds, Show: keyer.Show}), nil
}
