package testkit

import (
	"os"
	"os/exec"
	"testing"
)

// ToolsRequired tells whether a missing external tool (promtool, chromium)
// fails a test instead of skipping it: under make test, which sets
// PARTMON_REQUIRE_TOOLS=1, and in CI (CI set, and not to "false").
func ToolsRequired() bool {
	ci := os.Getenv("CI")
	return os.Getenv("PARTMON_REQUIRE_TOOLS") == "1" || (ci != "" && ci != "false")
}

// NeedTool returns the path of the first of names on PATH. When none is
// there the test fails where ToolsRequired and is skipped elsewhere, both
// saying what to install.
func NeedTool(t testing.TB, install string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if ToolsRequired() {
		t.Fatalf("%s is not on PATH (%s); make test (PARTMON_REQUIRE_TOOLS=1) and CI require it", names[0], install)
	}
	t.Skipf("%s is not on PATH (%s); make test requires it", names[0], install)
	return ""
}
