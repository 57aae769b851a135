package promexpr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"go.yaml.in/yaml/v3"
)

// Rule is one alerting or recording rule of a Prometheus rule file.
type Rule struct {
	Group       string            `yaml:"-"`
	Alert       string            `yaml:"alert"`
	Record      string            `yaml:"record"`
	Expr        string            `yaml:"expr"`
	For         string            `yaml:"for"`
	Labels      map[string]string `yaml:"labels"`
	Annotations map[string]string `yaml:"annotations"`
	// KeepFiringFor is accepted so that newer rule files still load.
	KeepFiringFor string `yaml:"keep_firing_for"`
}

// Name is the alert or record name.
func (r Rule) Name() string {
	if r.Alert != "" {
		return r.Alert
	}
	return r.Record
}

type ruleFile struct {
	Groups []struct {
		Name     string `yaml:"name"`
		Interval string `yaml:"interval"`
		Limit    int    `yaml:"limit"`
		Rules    []Rule `yaml:"rules"`
	} `yaml:"groups"`
}

// LoadRules reads a Prometheus rule file strictly (unknown keys are errors)
// and returns its rules in file order.
func LoadRules(path string) ([]Rule, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading rule file: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var f ruleFile
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("parsing rule file %s: %w", path, err)
	}
	var rules []Rule
	for _, g := range f.Groups {
		for _, r := range g.Rules {
			if (r.Alert == "") == (r.Record == "") {
				return nil, fmt.Errorf("rule file %s, group %s: a rule needs exactly one of alert and record", path, g.Name)
			}
			r.Group = g.Name
			rules = append(rules, r)
		}
	}
	return rules, nil
}
