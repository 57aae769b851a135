// Package alertmanager holds the tests of deploy/alertmanager/alertmanager.yml:
// its inhibit rules name real alerts (here) and its routing and inhibition
// work in a real Alertmanager (alertmanager_integration_test.go).
package alertmanager

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/tools/promexpr"
	"github.com/partmon/partmon/tools/testkit"
)

// alertmanagerFile is the shipped configuration, in this package's directory.
const alertmanagerFile = "alertmanager.yml"

var alertnameMatcher = regexp.MustCompile(`alertname\s*(=~|=)\s*"([^"]*)"`)

func TestAlertmanagerConfigNamesRealAlerts(t *testing.T) {
	data, err := os.ReadFile(alertmanagerFile)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		InhibitRules []struct {
			SourceMatchers []string `yaml:"source_matchers"`
			TargetMatchers []string `yaml:"target_matchers"`
			Equal          []string `yaml:"equal"`
		} `yaml:"inhibit_rules"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	rules, err := promexpr.LoadRules(testkit.Path(t, "deploy", "prometheus", "partmon-alerts.yml"))
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, r := range rules {
		if r.Alert != "" {
			known[r.Alert] = true
		}
	}
	for _, k := range alertmanager.DefaultAlertKinds {
		known[alertmanager.AlertName(k)] = true
	}
	if len(cfg.InhibitRules) == 0 {
		t.Fatal("no inhibit rules read")
	}
	for i, ir := range cfg.InhibitRules {
		if len(ir.Equal) == 0 {
			t.Errorf("inhibit rule %d: no equal labels, it would mute across clusters", i)
		}
		for _, m := range append(slices.Clone(ir.SourceMatchers), ir.TargetMatchers...) {
			sub := alertnameMatcher.FindStringSubmatch(m)
			if sub == nil {
				continue
			}
			names := []string{sub[2]}
			if sub[1] == "=~" {
				names = strings.Split(sub[2], "|")
			}
			for _, n := range names {
				if !known[n] {
					t.Errorf("inhibit rule %d names alert %s, which neither the rules nor partmon's pusher produce", i, n)
				}
			}
		}
	}
}
