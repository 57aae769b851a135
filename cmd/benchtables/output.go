package main

import (
	"fmt"
	"io"
	"runtime"
	"strings"
)

func printStage(w io.Writer, r *stageResult) {
	fmt.Fprintf(w, "\n== %d benchmark tables, node %s (partmon reads %d tables there, %d benchmark tables with estimates and sizes)\n",
		r.UserTables, r.Node, r.TablesSeen, r.BenchWithData)
	fmt.Fprintf(w, "   cycle %s ms (collect %s, analyze %s); first cycle %.0f ms\n", spread(r.Cycle), spread(r.Collect), spread(r.Analyze), r.ColdCycle)
	fmt.Fprintf(w, "   CQL per cycle on the node: %d statements (first cycle %d), %d round trips, %d rows\n",
		median(r.Statements), r.ColdStmts, median(r.Pages), median(r.Rows))
	for _, st := range r.PerStatement {
		fmt.Fprintf(w, "      %3d pages %6d rows  %s\n", st.Pages, st.Rows, shorten(st.Statement, 110))
	}
	fmt.Fprintf(w, "   cluster mode, 3 nodes: cycle %s ms, statements per node %v\n", spread(r.ClusterCycle), r.ClusterStmts)
	fmt.Fprintf(w, "   partmon report process %s ms; nodetool tablestats %s ms (%d KiB of output), tablehistograms %s ms, version %s ms\n",
		spread(r.OneShot), spread(r.Tablestats), r.TablestatsKB, spread(r.Histograms), spread(r.NodetoolVer))
	fmt.Fprintf(w, "   partmon run: ready after %s ms, peak RSS %s MiB, scrape %s ms, %d bytes (%d gzip), %d series (%d partmon_*)\n",
		spread(r.Ready), spread(r.PeakRSS), spread(r.Scrape), r.ScrapeBytes, r.ScrapeGzip, r.series.total, r.series.partmon)
	fmt.Fprintf(w, "   per table on this node: %.2f series (at most %d for one table), %.2f with every table-labelled series\n",
		r.series.perTable(), r.series.maxPerTable, r.series.perTableAll())
	if len(r.Failed) > 0 {
		fmt.Fprintf(w, "   FAILED SOURCES: %s\n", strings.Join(r.Failed, "; "))
	}
	fmt.Fprintf(w, "   load average %s -> %s\n", r.Load["start"], r.Load["end"])
}

// spread prints "median [min–max]".
func spread(v []float64) string {
	lo, hi := minMax(v)
	if len(v) < 2 {
		return fmt.Sprintf("%.1f", median(v))
	}
	return fmt.Sprintf("%.1f [%.1f–%.1f]", median(v), lo, hi)
}

func ratio(a, b float64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f×", a/b)
}

// rows are the results table: one line per figure, one column per table count.
func rows(results []*stageResult) [][]string {
	col := func(f func(r *stageResult) string) []string {
		out := make([]string, len(results))
		for i, r := range results {
			out[i] = f(r)
		}
		return out
	}
	line := func(name string, f func(r *stageResult) string) []string {
		return append([]string{name}, col(f)...)
	}
	return [][]string{
		line("tables partmon reads on the node (incl. system)", func(r *stageResult) string { return fmt.Sprint(r.TablesSeen) }),
		line("cycle: collect + analyze, ms (median [min–max])", func(r *stageResult) string { return spread(r.Cycle) }),
		line("  of which collect, ms", func(r *stageResult) string { return fmt.Sprintf("%.1f", median(r.Collect)) }),
		line("  of which analyze, ms", func(r *stageResult) string { return fmt.Sprintf("%.1f", median(r.Analyze)) }),
		line("first cycle (connect + probe + cycle), ms", func(r *stageResult) string { return fmt.Sprintf("%.0f", r.ColdCycle) }),
		line("CQL statements per node per cycle (first cycle)", func(r *stageResult) string {
			return fmt.Sprintf("%d (%d)", median(r.Statements), r.ColdStmts)
		}),
		line("CQL round trips (pages) per node per cycle", func(r *stageResult) string { return fmt.Sprint(median(r.Pages)) }),
		line("rows read per node per cycle", func(r *stageResult) string { return fmt.Sprint(median(r.Rows)) }),
		line("cluster mode (1 process, 3 nodes): cycle, ms", func(r *stageResult) string { return spread(r.ClusterCycle) }),
		line("cluster mode: statements per node, max", func(r *stageResult) string {
			var m int64
			for _, v := range r.ClusterStmts {
				m = max(m, v)
			}
			return fmt.Sprint(m)
		}),
		line("`partmon report` whole process, ms", func(r *stageResult) string { return spread(r.OneShot) }),
		line("`nodetool tablestats`, ms", func(r *stageResult) string { return spread(r.Tablestats) }),
		line("`nodetool tablehistograms` (one table), ms", func(r *stageResult) string { return spread(r.Histograms) }),
		line("`nodetool version` (JVM start + JMX connect only), ms", func(r *stageResult) string { return spread(r.NodetoolVer) }),
		line("tablestats ÷ partmon cycle", func(r *stageResult) string { return ratio(median(r.Tablestats), median(r.Cycle)) }),
		line("tablestats ÷ `partmon report` process", func(r *stageResult) string { return ratio(median(r.Tablestats), median(r.OneShot)) }),
		line("`partmon run`: ready (first cycle done), ms", func(r *stageResult) string { return spread(r.Ready) }),
		line("`partmon run`: peak RSS (VmHWM), MiB", func(r *stageResult) string { return spread(r.PeakRSS) }),
		line("/metrics scrape, ms", func(r *stageResult) string { return spread(r.Scrape) }),
		line("/metrics size: text / gzip, KiB", func(r *stageResult) string {
			return fmt.Sprintf("%.0f / %.0f", float64(r.ScrapeBytes)/1024, float64(r.ScrapeGzip)/1024)
		}),
		line("series: all / partmon_*", func(r *stageResult) string { return fmt.Sprintf("%d / %d", r.series.total, r.series.partmon) }),
		line("per-table-per-node series per table (max one table)", func(r *stageResult) string {
			return fmt.Sprintf("%.2f (%d)", r.series.perTable(), r.series.maxPerTable)
		}),
		line("every table-labelled series per table", func(r *stageResult) string { return fmt.Sprintf("%.2f", r.series.perTableAll()) }),
		line("load average (1/5/15 min) at start", func(r *stageResult) string { return r.Load["start"] }),
	}
}

type target struct {
	name, measured string
	met            bool
}

// targets judges the largest table count (and, for the query count, whether
// it moved with the table count).
func targets(results []*stageResult) []target {
	last := results[len(results)-1]
	stmts := median(last.Statements)
	constant := true
	for _, r := range results {
		if median(r.Statements) != stmts {
			constant = false
		}
	}
	var counts []string
	for _, r := range results {
		counts = append(counts, fmt.Sprint(median(r.Statements)))
	}
	speedup := median(last.Tablestats) / max(median(last.Cycle), 0.001)
	_, peak := minMax(last.PeakRSS)
	return []target{
		{"cycle ≤ 1 s per node", fmt.Sprintf("%.0f ms", median(last.Cycle)), median(last.Cycle) <= 1000},
		{"CQL statements per node per cycle ≤ 15, independent of tables", strings.Join(counts, " / "), stmts <= 15 && constant},
		{"scrape ≤ 50 ms", fmt.Sprintf("%.1f ms", median(last.Scrape)), median(last.Scrape) <= 50},
		{"peak RSS ≤ 64 MiB", fmt.Sprintf("%.1f MiB (max of runs)", peak), peak <= 64},
		{"≤ 8 series per table per node", fmt.Sprintf("%.2f, max %d", last.series.perTable(), last.series.maxPerTable), last.series.maxPerTable <= 8},
		{"≥ 10× faster than nodetool tablestats", fmt.Sprintf("%.1f×", speedup), speedup >= 10},
	}
}

func printSummary(w io.Writer, results []*stageResult, o options) {
	fmt.Fprintf(w, "\n== Summary (node %d, medians of %d runs; machine: %d CPUs)\n", o.node, o.runs, runtime.NumCPU())
	writeTable(w, results)
	fmt.Fprintf(w, "\nTargets at %d tables:\n", results[len(results)-1].UserTables)
	for _, t := range targets(results) {
		verdict := "met"
		if !t.met {
			verdict = "MISSED"
		}
		fmt.Fprintf(w, "  %-62s %-28s %s\n", t.name, t.measured, verdict)
	}
}

func writeTable(w io.Writer, results []*stageResult) {
	head := []string{"figure"}
	for _, r := range results {
		head = append(head, fmt.Sprintf("%d tables", r.UserTables))
	}
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	fmt.Fprintln(w, "|"+strings.Repeat("---|", len(head)))
	for _, row := range rows(results) {
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
}

func writeMarkdown(w io.Writer, results []*stageResult) {
	writeTable(w, results)
	fmt.Fprintf(w, "\n| target (at %d tables) | measured | |\n|---|---|---|\n", results[len(results)-1].UserTables)
	for _, t := range targets(results) {
		verdict := "met"
		if !t.met {
			verdict = "**missed**"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", t.name, t.measured, verdict)
	}
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-3] + "..."
}
