package testkit

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// outcome records how a test ended: a stand-in testing.TB whose Fatalf and
// Skipf end the goroutine as the real ones do.
type outcome struct {
	testing.TB
	failed, skipped bool
	msg             string
}

func (o *outcome) Helper() {}
func (o *outcome) Fatalf(format string, a ...any) {
	o.failed, o.msg = true, fmt.Sprintf(format, a...)
	runtime.Goexit()
}
func (o *outcome) Skipf(format string, a ...any) {
	o.skipped, o.msg = true, fmt.Sprintf(format, a...)
	runtime.Goexit()
}

func needToolOutcome(names ...string) *outcome {
	o := &outcome{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		o.msg = NeedTool(o, "apt-get install nothing", names...)
	}()
	<-done
	return o
}

// TestNeedTool: a missing tool fails the test under make test and in CI
// (the browser tests skipped there while CI was unset), and is skipped
// elsewhere; a present one is found.
func TestNeedTool(t *testing.T) {
	const missing = "partmon-no-such-tool"
	tests := []struct {
		name, require, ci string
		wantFail          bool
	}{
		{"make test", "1", "", true},
		{"CI", "", "true", true},
		{"CI=1", "", "1", true},
		{"by hand", "", "", false},
		{"CI=false", "", "false", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("PARTMON_REQUIRE_TOOLS", tc.require)
			t.Setenv("CI", tc.ci)
			o := needToolOutcome(missing)
			if o.failed != tc.wantFail || o.skipped == tc.wantFail {
				t.Errorf("failed %v skipped %v, want failed %v", o.failed, o.skipped, tc.wantFail)
			}
			if !strings.Contains(o.msg, missing+" is not on PATH (apt-get install nothing)") {
				t.Errorf("message %q does not say what is missing and how to install it", o.msg)
			}
		})
	}
	t.Setenv("PARTMON_REQUIRE_TOOLS", "1")
	if o := needToolOutcome(missing, "sh"); o.failed || o.skipped || !strings.HasSuffix(o.msg, "/sh") {
		t.Errorf("sh not found as the second name: %+v", o)
	}
}
