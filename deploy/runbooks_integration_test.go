//go:build integration

package deploy

// The runbooks followed as written, against a real partmon watching the
// fixture cluster make test starts: every command they give is run (the
// placeholders filled with the fixtures' names) or is on the list of what
// this machine cannot run, with the reason; a command on neither fails.
// The same partmon's /metrics goes through the shipped rules in promtool:
// none of partmon's own alerts fires on a partmon that reaches its cluster.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
)

// notRunHere are the runbook commands this machine cannot run, each with why.
var notRunHere = []struct{ pattern, why string }{
	{`^(kubectl|journalctl|systemctl)\b`, "the host's service manager or Kubernetes: partmon runs as a plain process here"},
	{`^cqlsh\b`, "no cqlsh: the local clusters are Cassandra's jars only (deploy/local/cluster)"},
	{`^(GRANT|SELECT)\b`, "a CQL statement, for cqlsh"},
	{`^curl .*:10000/`, "ScyllaDB's REST API: the fixture cluster is Cassandra"},
	{`^nodetool (cleanup|move|clearsnapshot|garbagecollect)\b`, "changes the cluster: the fixture cluster is shared read-only"},
	{`^(du|grep|sstablepartitions)\b.*/(etc|var)/`, "a node's own files, where Cassandra is installed as a package"},
}

// runbookCommand is a command line a runbook gives.
type runbookCommand struct{ file, line string }

var commandStart = regexp.MustCompile(`^(curl|jq|partmon|nodetool|cqlsh|kubectl|journalctl|systemctl|du|grep|sstablepartitions|GRANT|SELECT)\b`)

// runbookCommands are the lines of the runbooks' code blocks and their
// inline code that start with a command, a bare tool name (prose) left out.
func runbookCommands(t *testing.T) []runbookCommand {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(repoRoot, "docs", "runbooks", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no runbooks: %v", err)
	}
	seen := map[string]bool{}
	var out []runbookCommand
	add := func(file, line string) {
		line = strings.TrimSpace(regexp.MustCompile(`\s+# .*$`).ReplaceAllString(line, ""))
		if !commandStart.MatchString(line) || !strings.Contains(line, " ") || seen[line] {
			return
		}
		seen[line] = true
		out = append(out, runbookCommand{filepath.Base(file), line})
	}
	block := regexp.MustCompile("(?s)```[a-z]*\n(.*?)```")
	inline := regexp.MustCompile("`([^`\n]+)`")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range block.FindAllStringSubmatch(string(data), -1) {
			for _, l := range strings.Split(m[1], "\n") {
				add(f, l)
			}
		}
		for _, m := range inline.FindAllStringSubmatch(block.ReplaceAllString(string(data), ""), -1) {
			add(f, m[1])
		}
	}
	return out
}

// filled is a runbook command with its placeholders set to the fixtures'.
func filled(line, partmon, bin string) string {
	r := strings.NewReplacer(
		"http://<partmon>:9808", "http://"+partmon, "http://INSTANCE", "http://"+partmon,
		"KS.TABLE", "pm_big.events", "KS TABLE", "pm_big events", "'KEY'", "'big'",
		"KIND", "oversized_partition", "TABLE", "events", "NODE", testcluster.Hosts()[0],
		" KS", " pm_big")
	line = r.Replace(line)
	if strings.HasPrefix(line, "partmon ") {
		line = bin + strings.TrimPrefix(line, "partmon") + " --mode cluster"
	}
	return line
}

func TestRunbooksOnTheFixtureCluster(t *testing.T) {
	hosts := strings.Join(testcluster.Hosts(), ",")
	addr := startPartmon(t, "--mode=cluster", "--hosts="+hosts, "--log.level=warn")
	promtest.WaitFor(t, 5*time.Minute, "partmon's first cycle on the fixture cluster", func() bool {
		resp, err := http.Get("http://" + addr + "/readyz/cycle")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})

	t.Run("the shipped rules on its /metrics", func(t *testing.T) {
		series, err := scrapeMetrics("http://" + addr + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := seriesValue(series, "partmon_cycle_duration_seconds"); !ok || d <= 0 || d >= 60 {
			t.Errorf("partmon_cycle_duration_seconds %g (present %v): want the first cycle's own time, under the 60 s schedule", d, ok)
		}
		// 10 minutes on: within stale_after of its last cycle, so nothing of partmon's own may fire.
		promtoolAlerts(t, series, 10*time.Minute, map[string][]map[string]any{}, "PartmonDown", "PartmonCycleStale",
			"PartmonCollectorFailing", "PartmonAbsent", "PartmonTargetDown", "PartmonNodeDataStale")
	})

	shim := t.TempDir()
	nodetool := fmt.Sprintf("#!/bin/sh\nexec %q nodetool --dir %q 1 \"$@\"\n",
		filepath.Join(repoRoot, "deploy", "local", "cluster"), testcluster.Dir())
	if err := os.WriteFile(filepath.Join(shim, "nodetool"), []byte(nodetool), 0o755); err != nil {
		t.Fatal(err)
	}
	bin := buildPartmon(t)
	ran := 0
	for _, c := range runbookCommands(t) {
		if why := skipReason(c.line); why != "" {
			t.Logf("%s: not run here (%s): %s", c.file, why, c.line)
			continue
		}
		line := filled(c.line, addr, bin)
		t.Run(c.line, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "bash", "-c", line) // as typed: a pipe's status is its last command's
			cmd.Env = append(os.Environ(), "PATH="+shim+string(os.PathListSeparator)+os.Getenv("PATH"))
			t0 := time.Now()
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			// partmon report exits 1 or 2 when it finds warnings or critical problems (the fixtures have both).
			if err != nil && !(strings.HasPrefix(c.line, "partmon report") && errorsAs(err, &exit) && exit.ExitCode() <= 2) {
				t.Errorf("%s, as %s: %v\n%s", c.file, line, err, out)
			}
			if strings.TrimSpace(string(out)) == "" && !strings.Contains(line, "listsnapshots") {
				t.Errorf("%s, as %s: no output (a runbook step that shows nothing on the fixtures' planted problems)", c.file, line)
			}
			t.Logf("%.1f s", time.Since(t0).Seconds())
		})
		ran++
	}
	if ran == 0 {
		t.Fatal("no runbook command ran")
	}
}

func skipReason(line string) string {
	for _, s := range notRunHere {
		if regexp.MustCompile(s.pattern).MatchString(line) {
			return s.why
		}
	}
	return ""
}

func errorsAs(err error, target **exec.ExitError) bool { return errors.As(err, target) }
