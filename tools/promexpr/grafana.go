package promexpr

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// grafanaVariable matches the three ways Grafana writes a variable in a query:
// ${name} or ${name:format}, $name, and the deprecated [[name]].
var grafanaVariable = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)(?::[A-Za-z0-9_]+)?\}|\$([A-Za-z0-9_]+)|\[\[([A-Za-z0-9_]+)\]\]`)

// GrafanaBuiltins are stand-ins for the variables Grafana fills in itself,
// for a 6-hour dashboard scraped every 30 s: $__rate_interval is
// max(4 × scrape interval, $__interval + scrape interval).
func GrafanaBuiltins() map[string]string {
	return map[string]string{
		"__rate_interval": "2m",
		"__interval":      "30s",
		"__interval_ms":   "30000",
		"__range":         "6h",
		"__range_s":       "21600",
		"__range_ms":      "21600000",
	}
}

// ExpandGrafana replaces the Grafana variables in a query by values from
// vars, falling back to GrafanaBuiltins. A variable with no value is an
// error, so a query is never sent to Prometheus half-expanded.
func ExpandGrafana(query string, vars map[string]string) (string, error) {
	values := GrafanaBuiltins()
	maps.Copy(values, vars)
	missing := map[string]bool{}
	out := grafanaVariable.ReplaceAllStringFunc(query, func(ref string) string {
		sub := grafanaVariable.FindStringSubmatch(ref)
		name := sub[1] + sub[2] + sub[3] // exactly one group matched
		v, ok := values[name]
		if !ok {
			missing[name] = true
			return ref
		}
		return v
	})
	if len(missing) > 0 {
		names := slices.Sorted(maps.Keys(missing))
		return out, fmt.Errorf("query %q uses Grafana variables with no value: %s", query, strings.Join(names, ", "))
	}
	return out, nil
}

// GrafanaVariables returns the names of the Grafana variables a query uses, sorted.
func GrafanaVariables(query string) []string {
	seen := map[string]bool{}
	for _, sub := range grafanaVariable.FindAllStringSubmatch(query, -1) {
		seen[sub[1]+sub[2]+sub[3]] = true
	}
	return slices.Sorted(maps.Keys(seen))
}
