package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
)

// timesWriter records how long each top-level test took.
type timesWriter struct {
	w     io.Writer
	label string
}

// record writes one line for a top-level test that ended.
func (t *timesWriter) record(e event) {
	if e.Test == "" || strings.Contains(e.Test, "/") {
		return
	}
	switch e.Action {
	case "pass", "fail", "skip":
		fmt.Fprintf(t.w, "%.2f\t%s\t%s\t%s\n", e.Elapsed, t.label, e.Package, e.Test)
	}
}

// timed is one line of a -times file.
type timed struct {
	seconds float64
	line    string
}

// printSlowest prints the n slowest tests of the -times files, slowest first.
func printSlowest(out io.Writer, n int, paths []string) error {
	var all []timed
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			secs, rest, ok := strings.Cut(sc.Text(), "\t")
			v, err := strconv.ParseFloat(secs, 64)
			if !ok || err != nil {
				_ = f.Close() // only read
				return fmt.Errorf("%s: not a -times line: %q", p, sc.Text())
			}
			all = append(all, timed{v, rest})
		}
		_ = f.Close() // only read
		if err := sc.Err(); err != nil {
			return err
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].seconds > all[j].seconds })
	for _, t := range all[:min(n, len(all))] {
		label, rest, _ := strings.Cut(t.line, "\t")
		if label != "" {
			label = " [" + label + "]"
		}
		fmt.Fprintf(out, "%8.1f s  %s%s\n", t.seconds, strings.Replace(rest, "\t", " ", 1), label)
	}
	return nil
}
