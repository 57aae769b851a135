package promtest

import (
	"bufio"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// CheckMetrics runs `promtool check metrics` on page and returns what
// fails it. An exit of 0 passes. Otherwise every line promtool prints must
// name a family on the page that partmon does not own (client_golang's
// go_*, process_* and promhttp_* families) to be excused; anything else, a
// parse error of the whole page included, is a problem.
func CheckMetrics(promtool, page string) ([]string, error) {
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(page)
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return nil, fmt.Errorf("running promtool: %w", err)
	}
	if err == nil {
		return nil, nil
	}
	foreign := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(page))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) >= 3 && f[0] == "#" && f[1] == "TYPE" && !strings.HasPrefix(f[2], "partmon_") {
			foreign[f[2]] = true
		}
	}
	var problems []string
	for line := range strings.SplitSeq(strings.TrimSpace(string(out)), "\n") {
		if name, _, _ := strings.Cut(line, " "); !foreign[name] {
			problems = append(problems, line)
		}
	}
	if len(problems) == 0 && strings.TrimSpace(string(out)) == "" {
		problems = append(problems, fmt.Sprintf("promtool exited %d and said nothing", exit.ExitCode()))
	}
	return problems, nil
}
