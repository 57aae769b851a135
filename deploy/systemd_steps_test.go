package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSystemdInstallStepsBuildWhatTheyInstall: the install steps in
// partmon.service's header copy bin/partmon, which only `make build`
// makes (go install puts the binary elsewhere): a step before them says so.
func TestSystemdInstallStepsBuildWhatTheyInstall(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "systemd", "partmon.service"))
	if err != nil {
		t.Fatal(err)
	}
	built, uses := false, 0
	for _, l := range strings.Split(string(data), "\n") {
		step := strings.TrimSpace(strings.TrimPrefix(l, "#"))
		if step == "make build" {
			built = true
		}
		if strings.Contains(step, "bin/partmon") && strings.HasPrefix(step, "install ") {
			uses++
			if !built {
				t.Errorf("partmon.service: %q copies bin/partmon with no `make build` step before it", step)
			}
		}
	}
	if uses == 0 {
		t.Error("partmon.service: no install step copies the binary; the header must say how it gets to /usr/local/bin")
	}
}
