// Command truthcorpus runs partmon's truth corpus (tools/truth/scenarios) on a
// real local cluster and prints the confusion table. scripts/truth.sh
// starts the clusters and calls it:
//
//	truthcorpus list [--ci]
//	truthcorpus jvm-opts --cluster guardrail   (the node JVM options that start a cluster with its scenarios' guardrails)
//	truthcorpus run --cluster single|twodc --dir CLUSTER_DIR --bin PARTMON --out DIR [--ci] [--warmup 60s] [--daemon 5m] [--keep]
//	truthcorpus table [--markdown] [--defects FILE] RESULT.json...
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/partmon/partmon/tools/testkit"
	"github.com/partmon/partmon/tools/truth"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: truthcorpus list|jvm-opts|run|table [flags] (see the package comment)")
		return 2
	}
	var err error
	code := 0
	switch args[0] {
	case "list":
		err = list(args[1:], stdout)
	case "jvm-opts":
		err = jvmOpts(args[1:], stdout)
	case "run":
		code, err = runCluster(args[1:], stdout, stderr)
	case "table":
		code, err = table(args[1:], stdout)
	default:
		err = fmt.Errorf("unknown command %q (want list, jvm-opts, run or table)", args[0])
		code = 2
	}
	if err != nil {
		fmt.Fprintf(stderr, "truthcorpus: %v\n", err)
		if code == 0 {
			code = 3
		}
	}
	return code
}

func scenarioDir() string {
	root, err := testkit.RepoRoot()
	if err != nil {
		return filepath.Join("tools", "truth", "scenarios")
	}
	return filepath.Join(root, "tools", "truth", "scenarios")
}

func list(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("list", flag.ContinueOnError)
	ci := fs.Bool("ci", false, "only the CI subset")
	dir := fs.String("scenarios", scenarioDir(), "scenario directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	all, err := truth.LoadDir(*dir)
	if err != nil {
		return err
	}
	for _, s := range all {
		if *ci && !s.CI {
			continue
		}
		var kinds []string
		for _, e := range s.Expect {
			kinds = append(kinds, e.Kind)
		}
		if len(kinds) == 0 {
			kinds = []string{"silent"}
		}
		fmt.Fprintf(stdout, "%-36s %-4s %-6s ci=%-5v %s: %s\n", filepath.Base(s.File), s.Design, s.Cluster, s.CI, s.Keyspace, strings.Join(kinds, ", "))
	}
	return nil
}

// jvmOpts prints the PARTMON_NODE_JVM_OPTS that start a cluster with the
// guardrail settings its scenarios ask for (empty when none does).
func jvmOpts(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("jvm-opts", flag.ContinueOnError)
	cluster := fs.String("cluster", truth.ClusterGuardrail, "whose scenarios")
	dir := fs.String("scenarios", scenarioDir(), "scenario directory")
	if err := fs.Parse(args); err != nil {
		return err
	}
	all, err := truth.LoadDir(*dir)
	if err != nil {
		return err
	}
	opts, err := truth.JVMOpts(truth.For(all, *cluster, false))
	if err != nil {
		return err
	}
	fmt.Fprintln(stdout, opts)
	return nil
}

func runCluster(args []string, stdout, stderr io.Writer) (int, error) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	cluster := fs.String("cluster", truth.ClusterSingle, "which scenarios: single, twodc, heavy or guardrail")
	dir := fs.String("dir", "", "the cluster's state directory (deploy/local/cluster up --dir)")
	bin := fs.String("bin", "", "the partmon binary")
	out := fs.String("out", "", "output directory")
	ci := fs.Bool("ci", false, "only the CI subset")
	warmup := fs.Duration("warmup", 60*time.Second, "traffic before the one-shot report")
	daemon := fs.Duration("daemon", 5*time.Minute, "how long partmon run watches with history (0: no daemon phase)")
	later := fs.Duration("later-window", truth.DefaultLaterWindow, "the reference nodetool profileload window after partmon's report")
	keep := fs.Bool("keep", false, "keep the scenario keyspaces")
	seed := fs.Uint64("seed", 0, "the traffic's seed (0: from the clock); a result's seed draws the same keys again")
	scen := fs.String("scenarios", scenarioDir(), "scenario directory")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	if *dir == "" || *bin == "" || *out == "" {
		return 2, errors.New("run needs --dir, --bin and --out")
	}
	all, err := truth.LoadDir(*scen)
	if err != nil {
		return 2, err
	}
	scs := truth.For(all, *cluster, *ci)
	if len(scs) == 0 {
		return 2, fmt.Errorf("no scenarios for cluster %q (ci %v) in %s", *cluster, *ci, *scen)
	}
	root, err := testkit.RepoRoot()
	if err != nil {
		return 3, err
	}
	c, err := truth.OpenCluster(root, *dir, *cluster)
	if err != nil {
		return 3, err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := c.CheckGuardrails(ctx, scs); err != nil {
		return 3, err
	}
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "%s truth: %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, a...))
	}
	opt := truth.Options{Bin: *bin, OutDir: *out, Warmup: *warmup, DaemonFor: *daemon, LaterWindow: *later, Keep: *keep, Seed: *seed, Logf: logf}
	res, runErr := truth.Run(ctx, opt, c, scs)
	if res != nil {
		if err := writeJSON(filepath.Join(*out, "result-"+*cluster+".json"), res); err != nil {
			return 3, err
		}
		for _, phase := range []string{truth.PhaseOneShot, truth.PhaseDaemon} {
			if s := truth.Summarize([]*truth.ClusterResult{res}, phase); s.ScenarioCount > 0 {
				s.WriteText(stdout)
			}
		}
	}
	if runErr != nil {
		return 3, runErr
	}
	return 0, nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// table merges the result files of one `make truth` and prints the
// confusion tables; it exits 1 when a planted problem was missed or a
// false finding above info was given.
func table(args []string, stdout io.Writer) (int, error) {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	markdown := fs.Bool("markdown", false, "print Markdown tables (docs/detection.md)")
	defects := fs.String("defects", "", "also write the defect list with its evidence to this file")
	if err := fs.Parse(args); err != nil {
		return 2, err
	}
	if fs.NArg() == 0 {
		return 2, errors.New("table needs result files (result-*.json)")
	}
	var results []*truth.ClusterResult
	for _, p := range fs.Args() {
		b, err := os.ReadFile(p)
		if err != nil {
			return 3, err
		}
		var r truth.ClusterResult
		if err := json.Unmarshal(b, &r); err != nil {
			return 3, fmt.Errorf("%s: %w", p, err)
		}
		results = append(results, &r)
	}
	failed := false
	var sums []truth.Summary
	for _, phase := range []string{truth.PhaseOneShot, truth.PhaseDaemon} {
		s := truth.Summarize(results, phase)
		if s.ScenarioCount == 0 {
			continue
		}
		sums = append(sums, s)
		failed = failed || s.Failed()
		if *markdown {
			s.WriteMarkdown(stdout)
		} else {
			s.WriteText(stdout)
		}
	}
	if *defects != "" {
		f, err := os.Create(*defects)
		if err != nil {
			return 3, err
		}
		fmt.Fprintf(f, "# truth corpus defects (generated by truthcorpus table from %s)\n\n", strings.Join(fs.Args(), ", "))
		truth.WriteDefects(f, sums)
		if err := f.Close(); err != nil {
			return 3, err
		}
	}
	if failed {
		return 1, nil
	}
	return 0, nil
}
