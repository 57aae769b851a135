// Command fixturetool plants known partition problems in the real local
// Cassandra cluster and prints the ground truth read back from it. Run it
// through deploy/local/fixtures:
//
//	fixtures load [--large-mib 110] [--hot-seconds 10] [--rate 300]
//	fixtures hotkey --seconds S [--share 0.8] [--rate 300]
//	fixtures grow --rows N
//	fixtures truth
//	fixtures drop
//	fixtures top-partitions [--repair=true] [--persist=true]
//	fixtures zoo [--drop]      the schema zoo (zoo.go), truth in DIR/zoo-truth.json
//	fixtures auth-replication   (run by `cluster up --auth`)
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	cmd, args := os.Args[1], os.Args[2:]
	start := time.Now()
	var err error
	switch cmd {
	case "load":
		fs := flag.NewFlagSet("load", flag.ExitOnError)
		largeMiB := fs.Int("large-mib", 110, "payload MiB written into the one oversized partition")
		hotSeconds := fs.Int("hot-seconds", 10, "seconds of hot-key traffic after loading")
		share := fs.Float64("share", 0.8, "share of hot-key operations in that traffic")
		rate := fs.Float64("rate", hotRate, "hot-key operations a second at most (0: unpaced)")
		_ = fs.Parse(args)
		err = load(ctx, *largeMiB, *hotSeconds, *share, *rate)
	case "hotkey":
		fs := flag.NewFlagSet("hotkey", flag.ExitOnError)
		seconds := fs.Int("seconds", 30, "how long to drive traffic")
		share := fs.Float64("share", 0.8, "share of operations on the hot key")
		rate := fs.Float64("rate", hotRate, "operations a second at most (0: unpaced)")
		_ = fs.Parse(args)
		// SIGTERM ends the traffic early, not the command: the share
		// measured so far is still recorded (a test stops the traffic
		// once its samples are in instead of waiting out --seconds).
		err = hotkeyCommand(ctx, *seconds, *share, *rate)
	case "grow":
		fs := flag.NewFlagSet("grow", flag.ExitOnError)
		rows := fs.Int("rows", 10000, "rows appended to the busiest sensor of pm_ts.readings")
		_ = fs.Parse(args)
		err = growCommand(ctx, *rows)
	case "truth":
		err = truthCommand(ctx)
	case "drop":
		err = dropCommand(ctx)
	case "top-partitions":
		fs := flag.NewFlagSet("top-partitions", flag.ExitOnError)
		repair := fs.Bool("repair", true, "run nodetool repair --full -pr of the fixture keyspaces on every node first")
		persist := fs.Bool("persist", true, "save the nodes' top partitions now (cluster save-top-partitions)")
		_ = fs.Parse(args)
		err = topPartitionsCommand(ctx, *repair, *persist)
	case "zoo":
		fs := flag.NewFlagSet("zoo", flag.ExitOnError)
		drop := fs.Bool("drop", false, "drop the zoo instead of planting it")
		_ = fs.Parse(args)
		err = zooCommand(ctx, *drop)
	case "auth-replication":
		err = authReplication(ctx)
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "fixtures: ERROR: %v\n", err)
		os.Exit(1)
	}
	logf("%s took %.1f s", cmd, time.Since(start).Seconds())
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: fixtures load [--large-mib 110] [--hot-seconds 10] [--share 0.8] [--rate 300] | hotkey --seconds S [--share 0.8] [--rate 300] | grow --rows N | truth | drop | top-partitions [--repair=false] [--persist=false] | zoo [--drop]")
	os.Exit(2)
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fixtures: "+format+"\n", args...)
}
