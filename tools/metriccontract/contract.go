// Package metriccontract is what partmon's dashboards and alerting rules are
// held to: the metric names the exporter declares and the label names each
// metric carries in the exporter's golden exposition files
// (exporter/testdata/*.prom, written from real reports by the exporter's own
// tests). The dashboards tests and the rule tests under deploy/ share it.
package metriccontract

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/tools/promexpr"
	"github.com/partmon/partmon/tools/testkit"
)

// TargetLabels are the labels Prometheus adds to every series from the scrape
// configuration: job and instance always; cluster on the self-metrics, which
// partmon publishes without it (deploy/prometheus/prometheus.yml adds it).
var TargetLabels = []string{"job", "instance", "cluster"}

var (
	labelsOnce sync.Once
	labelsMap  map[string]map[string]bool
	labelsErr  error
)

// Labels maps each metric of the exporter's golden exposition files to the
// label names it carries. The files are read once.
func Labels() (map[string]map[string]bool, error) {
	labelsOnce.Do(func() { labelsMap, labelsErr = readGolden() })
	return labelsMap, labelsErr
}

func readGolden() (map[string]map[string]bool, error) {
	root, err := testkit.RepoRoot()
	if err != nil {
		return nil, err
	}
	pattern := filepath.Join(root, "exporter", "testdata", "*.prom")
	files, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no golden exposition files %s", pattern)
	}
	out := map[string]map[string]bool{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		p := expfmt.NewTextParser(model.UTF8Validation)
		families, err := p.TextToMetricFamilies(strings.NewReader(string(data)))
		if err != nil {
			return nil, fmt.Errorf("parsing %s: %w", f, err)
		}
		for name, mf := range families {
			set := out[name]
			if set == nil {
				set = map[string]bool{}
				out[name] = set
			}
			for _, m := range mf.GetMetric() {
				for _, lp := range m.GetLabel() {
					set[lp.GetName()] = true
				}
			}
		}
	}
	return out, nil
}

// MetricNames lists every partmon family /metrics can serve (sorted): the
// exporter's and the alert pusher's. go_*, process_* and promhttp_*
// families are not listed.
func MetricNames() []string {
	names := append(exporter.MetricNames(), alertmanager.MetricNames()...)
	slices.Sort(names)
	return names
}

// Names is MetricNames as a set.
func Names() map[string]bool {
	set := map[string]bool{}
	for _, n := range MetricNames() {
		set[n] = true
	}
	return set
}

// RecordingLevels are the labels a recorded series keeps, by the level its
// name starts with (level:metric:operation, Prometheus' naming of rules).
var RecordingLevels = map[string][]string{
	"table":      {"cluster", "keyspace", "table"},
	"node":       {"cluster", "dc", "rack", "node"},
	"node_table": {"cluster", "dc", "rack", "node", "keyspace", "table"},
}

// recordedLabels are a recorded series' labels, by its level.
func recordedLabels(name string) (map[string]bool, bool) {
	parts := strings.Split(name, ":")
	if len(parts) != 3 || RecordingLevels[parts[0]] == nil {
		return nil, false
	}
	out := map[string]bool{}
	for _, l := range RecordingLevels[parts[0]] {
		out[l] = true
	}
	return out, true
}

// Check holds one expression to the contract: known metric names (plus
// extra, e.g. `up` in rules), label matchers and grouping labels that exist
// on the metrics it reads. It returns one message per problem.
// A recorded series among extra has its level's labels.
func Check(a promexpr.Analysis, extra ...string) ([]string, error) {
	golden, err := Labels()
	if err != nil {
		return nil, fmt.Errorf("reading the exporter's golden exposition files: %w", err)
	}
	names := Names()
	for _, e := range extra {
		names[e] = true
	}
	var problems []string
	available := map[string]bool{}
	for _, l := range TargetLabels {
		available[l] = true
	}
	for _, s := range a.Selectors {
		if s.Metric == "" {
			problems = append(problems, "a selector names no metric")
			continue
		}
		if !names[s.Metric] {
			problems = append(problems, "unknown metric "+s.Metric)
			continue
		}
		known, ok := golden[s.Metric]
		if !ok {
			known, ok = recordedLabels(s.Metric)
		}
		if !ok {
			continue // not in any golden file (e.g. registered counters): names checked above
		}
		for l := range known {
			available[l] = true
		}
		for _, m := range s.Matchers {
			if !known[m.Name] && !slices.Contains(TargetLabels, m.Name) {
				problems = append(problems, "metric "+s.Metric+" has no label "+m.Name)
			}
		}
	}
	for _, g := range a.GroupingLabels {
		if !available[g] {
			problems = append(problems, "grouping label "+g+" is on none of the metrics read")
		}
	}
	return problems, nil
}
