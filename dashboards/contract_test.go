package dashboards

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/promexpr"
)

// Labels Prometheus adds to every series from the scrape configuration:
// job and instance always; cluster on the self-metrics, which partmon
// publishes without it (deploy/prometheus/prometheus.yml adds it).
var targetLabels = []string{"job", "instance", "cluster"}

var (
	exporterLabelsOnce sync.Once
	exporterLabelsMap  map[string]map[string]bool
	exporterLabelsErr  error
)

// exporterLabels maps each metric of the exporter's golden exposition files
// (exporter/testdata/*.prom, written from real reports by the exporter's own
// tests) to the label names it carries.
func exporterLabels(t *testing.T) map[string]map[string]bool {
	t.Helper()
	exporterLabelsOnce.Do(func() {
		files, err := filepath.Glob(filepath.Join("..", "exporter", "testdata", "*.prom"))
		if err != nil || len(files) == 0 {
			exporterLabelsErr = err
			if err == nil {
				exporterLabelsErr = os.ErrNotExist
			}
			return
		}
		exporterLabelsMap = map[string]map[string]bool{}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				exporterLabelsErr = err
				return
			}
			p := expfmt.NewTextParser(model.UTF8Validation)
			families, err := p.TextToMetricFamilies(strings.NewReader(string(data)))
			if err != nil {
				exporterLabelsErr = err
				return
			}
			for name, mf := range families {
				set := exporterLabelsMap[name]
				if set == nil {
					set = map[string]bool{}
					exporterLabelsMap[name] = set
				}
				for _, m := range mf.GetMetric() {
					for _, lp := range m.GetLabel() {
						set[lp.GetName()] = true
					}
				}
			}
		}
	})
	if exporterLabelsErr != nil {
		t.Fatalf("reading the exporter's golden exposition files: %v", exporterLabelsErr)
	}
	return exporterLabelsMap
}

// metricNames is the exporter's declared metric list as a set.
func metricNames() map[string]bool {
	set := map[string]bool{}
	for _, n := range exporter.MetricNames() {
		set[n] = true
	}
	return set
}

// checkExpr holds one expression to the metric contract: known metric names
// (plus extra, e.g. `up` in rules), label matchers and grouping labels that
// exist on the metrics it reads. It returns one message per problem.
func checkExpr(t *testing.T, a promexpr.Analysis, extra ...string) []string {
	t.Helper()
	names := metricNames()
	for _, e := range extra {
		names[e] = true
	}
	golden := exporterLabels(t)
	var problems []string
	available := map[string]bool{}
	for _, l := range targetLabels {
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
			continue // not in any golden file (e.g. registered counters): names checked above
		}
		for l := range known {
			available[l] = true
		}
		for _, m := range s.Matchers {
			if !known[m.Name] && !slices.Contains(targetLabels, m.Name) {
				problems = append(problems, "metric "+s.Metric+" has no label "+m.Name)
			}
		}
	}
	for _, g := range a.GroupingLabels {
		if !available[g] {
			problems = append(problems, "grouping label "+g+" is on none of the metrics read")
		}
	}
	return problems
}

func TestGoldenFilesCoverContract(t *testing.T) {
	// The label checks are only as good as the golden files: they must show
	// the data metrics whose labels dashboards and rules filter on.
	golden := exporterLabels(t)
	for _, name := range []string{
		"partmon_table_max_partition_size_bytes", "partmon_node_ownership_skew_ratio",
		"partmon_partition_size_bytes", "partmon_finding_value", "partmon_collector_success", "partmon_up",
	} {
		if _, ok := golden[name]; !ok {
			t.Errorf("%s is in no exporter/testdata/*.prom file", name)
		}
	}
	if !golden["partmon_table_max_partition_size_bytes"]["keyspace"] {
		t.Errorf("partmon_table_max_partition_size_bytes has no keyspace label in the golden files")
	}
}
