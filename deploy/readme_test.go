package deploy

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// firstScreen is how many lines of README a person sees before scrolling.
const firstScreen = 40

// TestReadmeFirstScreen: README stays under 300 lines, and its first screen
// holds both paths: a user's with a cluster (install, one config, the first
// report, the sidecar: scripts/readme-path.sh runs it) and make demo / make
// test with what they need in one line, that line naming every tool
// scripts/test-all.sh checks for.
func TestReadmeFirstScreen(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if len(lines) > 301 {
		t.Errorf("README has %d lines, want at most 300: history and long tables go to docs/", len(lines)-1)
	}
	screen := strings.Join(lines[:min(firstScreen, len(lines))], "\n")
	for _, want := range []string{"go install ", "partmon.yml", "partmon check-config ", "partmon report ", "partmon run ", "make demo", "make test"} {
		if !strings.Contains(screen, want) {
			t.Errorf("README's first %d lines lack %q", firstScreen, want)
		}
	}
	script, err := os.ReadFile(filepath.Join(repoRoot, "scripts", "test-all.sh"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^for tool in ([^;]+); do`).FindSubmatch(script)
	if m == nil {
		t.Fatal("scripts/test-all.sh has no `for tool in ...; do` check")
	}
	var needs string
	for _, l := range lines[:min(firstScreen, len(lines))] {
		if strings.Contains(l, "need") {
			needs += l + "\n"
		}
	}
	// How README names what the script checks: a tool by its package, or
	// nothing for what every Linux has.
	named := map[string]string{"java": "Java 17", "mvn": "Maven", "go": "Go 1.26", "promtool": "`prometheus`", "setsid": ""}
	for _, tool := range strings.Fields(string(m[1])) {
		word, ok := named[tool]
		if !ok {
			word = "`" + tool + "`"
			if tool == "python3" {
				word = "python3"
			}
		}
		if word != "" && !strings.Contains(needs, word) {
			t.Errorf("scripts/test-all.sh needs %s; README's first screen does not say %s on its \"need\" lines:\n%s", tool, word, needs)
		}
	}
}
