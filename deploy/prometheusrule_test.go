package deploy

// deploy/kubernetes/prometheusrule.yaml carries the shipped alerting and
// recording rules (deploy/prometheus/partmon-*.yml, their one home) to a
// Prometheus Operator. It is generated from them:
//   go test ./deploy/ -run TestPrometheusRuleIsTheShippedRules -update-prometheusrule

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"
)

var updatePrometheusRule = flag.Bool("update-prometheusrule", false, "rewrite deploy/kubernetes/prometheusrule.yaml from the rule files")

var shippedRuleFiles = []string{"partmon-alerts.yml", "partmon-recording.yml"}

const prometheusRuleHeader = `# The shipped alerting and recording rules (deploy/prometheus/partmon-alerts.yml
# and partmon-recording.yml) for the Prometheus Operator. Generated from them,
# never edited: go test ./deploy/ -run TestPrometheusRuleIsTheShippedRules -update-prometheusrule
# The Prometheus must select this object (its ruleSelector) and send alerts to
# the Alertmanager partmon pushes to (partmon-configmap.yaml).
`

func shippedRuleGroups(t *testing.T) []any {
	t.Helper()
	var groups []any
	for _, f := range shippedRuleFiles {
		var rf struct {
			Groups []any `yaml:"groups"`
		}
		readYAML(t, filepath.Join("deploy", "prometheus", f), &rf)
		if len(rf.Groups) == 0 {
			t.Fatalf("%s has no rule groups", f)
		}
		groups = append(groups, rf.Groups...)
	}
	return groups
}

func TestPrometheusRuleIsTheShippedRules(t *testing.T) {
	groups := shippedRuleGroups(t)
	file := filepath.Join(repoRoot, "deploy", "kubernetes", "prometheusrule.yaml")
	if *updatePrometheusRule {
		obj := map[string]any{
			"apiVersion": "monitoring.coreos.com/v1",
			"kind":       "PrometheusRule",
			"metadata":   map[string]any{"name": "partmon", "labels": map[string]any{"app.kubernetes.io/name": "partmon"}},
			"spec":       map[string]any{"groups": groups},
		}
		var b bytes.Buffer
		b.WriteString(prometheusRuleHeader)
		enc := yaml.NewEncoder(&b)
		enc.SetIndent(2)
		if err := enc.Encode(obj); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var pr struct {
		Kind string `yaml:"kind"`
		Spec struct {
			Groups []any `yaml:"groups"`
		} `yaml:"spec"`
	}
	readYAML(t, "deploy/kubernetes/prometheusrule.yaml", &pr)
	if pr.Kind != "PrometheusRule" || !reflect.DeepEqual(pr.Spec.Groups, groups) {
		t.Errorf("deploy/kubernetes/prometheusrule.yaml is not the groups of %v: regenerate it (its header says how)", shippedRuleFiles)
	}
}
