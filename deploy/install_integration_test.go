//go:build integration

package deploy

// README's "Install and run against your cluster" run as written, against the
// fixture cluster make test starts: its commands are read from README.md, so
// they cannot drift from what this test runs.

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/tools/testcluster"
)

// readmeHost is the placeholder node README's commands name.
const readmeHost = "10.0.0.1"

// installCommands are the lines of the first sh block under the README heading.
func installCommands(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)\n## Install and run against your cluster\n.*?```sh\n(.*?)```").FindSubmatch(data)
	if m == nil {
		t.Fatal("README.md has no sh block under \"## Install and run against your cluster\"")
	}
	var cmds []string
	for _, l := range strings.Split(string(m[1]), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			cmds = append(cmds, l)
		}
	}
	if len(cmds) == 0 || len(cmds) > 2 {
		t.Fatalf("README's install block has %d commands, want one or two: %q", len(cmds), cmds)
	}
	if !strings.HasPrefix(cmds[len(cmds)-1], "partmon report ") || !strings.Contains(cmds[len(cmds)-1], readmeHost) {
		t.Fatalf("README's install block must end with `partmon report --hosts %s ...`: %q", readmeHost, cmds)
	}
	return cmds
}

func TestReadmeInstallFindsThePlantedProblems(t *testing.T) {
	truth, err := testcluster.LoadTruth()
	if err != nil {
		t.Fatal(err)
	}
	cmds := installCommands(t)
	gobin := t.TempDir()
	env := append(os.Environ(), "GOBIN="+gobin, "PATH="+gobin+string(os.PathListSeparator)+os.Getenv("PATH"))
	var report string
	for _, c := range cmds {
		c = strings.ReplaceAll(c, readmeHost, testcluster.Hosts()[0])
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, "sh", "-c", c)
		cmd.Dir, cmd.Env = repoRoot, env
		t0 := time.Now()
		out, err := cmd.CombinedOutput()
		cancel()
		t.Logf("%s: %.1f s", c, time.Since(t0).Seconds())
		var exit *exec.ExitError
		// report exits 1 or 2 when it finds warnings or critical problems.
		if err != nil && !(errors.As(err, &exit) && strings.HasPrefix(c, "partmon report") && exit.ExitCode() <= 2) {
			t.Fatalf("%s: %v\n%s", c, err, out)
		}
		report = string(out)
	}
	if _, err := os.Stat(filepath.Join(gobin, "partmon")); err != nil {
		t.Errorf("README's commands did not install partmon into GOBIN: %v", err)
	}
	checked := 0
	for _, kind := range []string{analyzer.KindOversizedPartition, analyzer.KindTombstoneHeavy} {
		for _, p := range truth.Find(kind) {
			checked++
			// One problem's kinds share a line: "[oversized_partition + wide_partition] pm_big.events".
			if !regexp.MustCompile(`\[([a-z_]+ \+ )*` + kind + `( \+ [a-z_]+)*\] ` + regexp.QuoteMeta(p.Keyspace+"."+p.Table) + `\b`).MatchString(report) {
				t.Errorf("the report does not name the planted %s on %s.%s:\n%s", kind, p.Keyspace, p.Table, report)
			}
		}
	}
	if checked < 2 {
		t.Fatalf("the fixture truth plants %d oversized or tombstone-heavy partitions, want both kinds", checked)
	}
}
