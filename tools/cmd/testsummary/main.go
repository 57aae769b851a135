// Command testsummary turns `go test -json` into the log a person reads and
// counts what really ran: go test prints `ok` also for a package in which
// every test skipped (a package whose tests need a cluster it was not
// given), so counting `ok` packages would inflate "N passed".
//
//	go test -json ./... | testsummary [-v] [-times FILE [-label L]]
//	                                         print go test's usual lines
//	testsummary -total LOG...                print the closing summary line
//	testsummary -slowest N TIMES...          the N slowest tests of -times files
//
// Rendering keeps go test's plain output: the ok, FAIL and "?" lines of each
// package, the whole output of a failed test, the reason of a skipped one
// (-v: every line). Each ok line gains what ran: "(12 passed, 2 skipped)",
// or "(every test skipped: 3)". -total reads such logs and prints
// "summary: N passed, K failed, M skipped" (M: packages whose every test skipped,
// counted apart from the passed ones). -times appends each top-level test's
// seconds to FILE ("seconds<TAB>label<TAB>package<TAB>test"), so a run says
// where its time went; -slowest prints the slowest of them.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

func main() {
	verbose := flag.Bool("v", false, "print the output of every test, as go test -v does")
	total := flag.Bool("total", false, "print the summary line of the logs named as arguments")
	times := flag.String("times", "", "append each top-level test's seconds to this file")
	label := flag.String("label", "", "the label of this run in the -times file (e.g. the Cassandra release)")
	slowest := flag.Int("slowest", 0, "print the N slowest tests of the -times files named as arguments")
	noSkip := flag.Bool("no-skip", false, "exit 1 when every test of a package skipped: a step that must run what it names (a cluster started for it)")
	// Every event keeps its time and its test's log lines, passing tests'
	// too: where a slow run spent its minutes, after the fact.
	raw := flag.String("raw", os.Getenv("TEST_JSON"), "append go test's JSON events, as read, to this file (default $TEST_JSON)")
	flag.Parse()
	if *slowest > 0 {
		if err := printSlowest(os.Stdout, *slowest, flag.Args()); err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			os.Exit(1)
		}
		return
	}
	if *total {
		s, err := totalOf(flag.Args())
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsummary:", err)
			os.Exit(1)
		}
		fmt.Println(s)
		return
	}
	var timesOut *timesWriter
	if *times != "" {
		f := openAppend(*times)
		defer f.Close()
		timesOut = &timesWriter{w: f, label: *label}
	}
	var in io.Reader = os.Stdin
	if *raw != "" {
		f := openAppend(*raw)
		defer f.Close()
		in = io.TeeReader(os.Stdin, f)
	}
	runs, err := render(in, os.Stdout, *verbose, timesOut)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	if *noSkip {
		if skipped := allSkipped(runs); len(skipped) > 0 {
			fmt.Fprintf(os.Stdout, "testsummary: every test of %s skipped (the reason above): this step started its cluster to run them\n", strings.Join(skipped, ", "))
			os.Exit(1)
		}
	}
}

// allSkipped names the packages that passed with every test skipped.
func allSkipped(runs map[string]*pkgRun) []string {
	var out []string
	for pkg, r := range runs {
		if r.passed == 0 && r.skipped > 0 {
			out = append(out, pkg)
		}
	}
	sort.Strings(out)
	return out
}

// openAppend opens path for appending, or exits: make test's steps add to
// the same files run after run of testsummary.
func openAppend(path string) *os.File {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsummary:", err)
		os.Exit(1)
	}
	return f
}

// event is one line of `go test -json` (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
	Elapsed float64
}

// pkgRun is what one package's tests did so far.
type pkgRun struct {
	passed, skipped, failed int
	output                  map[string][]string // per top-level test, until it ends
}

// render prints the plain log of a `go test -json` stream; with times,
// each top-level test's duration goes there too.
func render(in io.Reader, out io.Writer, verbose bool, times *timesWriter) (map[string]*pkgRun, error) {
	runs := map[string]*pkgRun{}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Fprintf(out, "%s\n", line) // not test2json (e.g. go vet's output): pass it on
			continue
		}
		r := runs[e.Package]
		if r == nil {
			r = &pkgRun{output: map[string][]string{}}
			runs[e.Package] = r
		}
		if e.Test == "" {
			packageEvent(out, r, e)
			continue
		}
		testEvent(out, r, e, verbose)
		if times != nil {
			times.record(e)
		}
	}
	return runs, sc.Err()
}

// packageEvent prints a package's own lines, its ok line with what ran.
func packageEvent(out io.Writer, r *pkgRun, e event) {
	if e.Action != "output" && e.Action != "build-output" {
		return
	}
	switch {
	case e.Output == "PASS\n": // go test prints it only with -v
	case strings.HasPrefix(e.Output, "ok  \t"):
		fmt.Fprintf(out, "%s\t%s\n", strings.TrimSuffix(e.Output, "\n"), r.ran())
	default:
		fmt.Fprint(out, e.Output)
	}
}

// testEvent keeps a test's output until the test ends: printed when it
// failed or skipped (the reason), dropped when it passed unless verbose.
func testEvent(out io.Writer, r *pkgRun, e event, verbose bool) {
	top, _, sub := strings.Cut(e.Test, "/")
	switch e.Action {
	case "output":
		if verbose {
			fmt.Fprint(out, e.Output)
			return
		}
		if !isFraming(e.Output) {
			r.output[top] = append(r.output[top], e.Output)
		}
		return
	case "pass", "fail", "skip":
	default:
		return
	}
	if sub {
		return // counted with its top-level test
	}
	switch e.Action {
	case "pass":
		r.passed++
	case "fail":
		r.failed++
	case "skip":
		r.skipped++
	}
	if !verbose && e.Action != "pass" {
		fmt.Fprint(out, strings.Join(r.output[top], ""))
	}
	delete(r.output, top)
}

// isFraming tells go test -v's progress lines, which plain go test does
// not print.
func isFraming(line string) bool {
	for _, p := range []string{"=== RUN", "=== PAUSE", "=== CONT", "=== NAME"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// ran says what ran in a package that passed.
func (r *pkgRun) ran() string {
	if r.passed == 0 {
		return fmt.Sprintf("(every test skipped: %d)", r.skipped)
	}
	return fmt.Sprintf("(%d passed, %d skipped)", r.passed, r.skipped)
}

var (
	okLine   = regexp.MustCompile(`^ok\s+\S`)
	failLine = regexp.MustCompile(`^FAIL\s+\S`) // "FAIL\tpkg 0.1s", not the bare "FAIL" before it
)

// totalOf counts the package lines of the logs: an ok line that says every
// test skipped is no pass.
func totalOf(paths []string) (string, error) {
	var passed, allSkipped, failed int
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return "", err
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			line := sc.Text()
			switch {
			case okLine.MatchString(line) && strings.Contains(line, "(every test skipped"):
				allSkipped++
			case okLine.MatchString(line):
				passed++
			case failLine.MatchString(line):
				failed++
			}
		}
		_ = f.Close() // only read
		if err := sc.Err(); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("summary: %d passed, %d failed, %d skipped", passed, failed, allSkipped), nil
}
