package alertmanager

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/publish"
)

// Which findings become pushed alerts.
//
// Key-level findings (those naming a partition key) cannot be alerted on from
// Prometheus rules without one label value per key, so partmon pushes them to
// Alertmanager itself. Findings of DefaultAlertKinds are pushed too even when
// they name no key (a table's largest partition from system_views has no key):
// they are the ones an operator must act on per table. Everything else
// (ownership and load skew, hot token ranges, schema-design findings,
// forecasts, stale data) is published as partmon_finding_value /
// partmon_node_* series for Prometheus alerting rules with a `for:` clause.
// The shipped rules also alert on the pushed kinds (the push is off by
// default); their alerts carry pushed="true", and the shipped inhibitions let
// a pushed alert (it has a finding_id label) mute them: one alert per problem.
var DefaultAlertKinds = analyzer.KindsPushedWithoutKey()

// DefaultRunbookURL is the runbook_url of pushed alerts unless configured:
// the runbook has one section per finding kind.
const DefaultRunbookURL = "https://github.com/partmon/partmon/blob/main/docs/runbooks/PartmonAnalyzerFinding.md#{kind}"

// postableAlert is one element of Alertmanager's POST /api/v2/alerts body
// (postableAlert in alertmanager's api/v2/openapi.yaml).
type postableAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     time.Time         `json:"startsAt"`
	EndsAt       time.Time         `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

// AlertName is the alertname of a finding kind: oversized_partition → PartmonOversizedPartition.
func AlertName(kind string) string {
	var b strings.Builder
	b.WriteString("Partmon")
	for _, part := range strings.Split(kind, "_") {
		if part != "" {
			b.WriteString(strings.ToUpper(part[:1]) + part[1:])
		}
	}
	return b.String()
}

// alertKey follows a finding across cycles: its stable ID, else its scope.
func alertKey(f finding.Finding) string {
	if f.ID != "" {
		return f.ID
	}
	return strings.Join([]string{f.Kind, f.Node, f.Keyspace, f.Table, f.PartitionKey}, "\x00")
}

// alertTemplate turns findings into alerts: labels that identify the
// problem, annotations that explain it, links back to partmon.
type alertTemplate struct {
	runbookURL  string // "{kind}" is replaced; "-" leaves runbook_url out
	externalURL string // partmon's own URL; empty: no generatorURL
}

func (t alertTemplate) alertFor(f finding.Finding, cluster string) postableAlert {
	labels := map[string]string{}
	for k, v := range map[string]string{
		"alertname": AlertName(f.Kind), "severity": f.Severity.String(), "cluster": cluster,
		"dc": f.DC, "node": f.Node, "keyspace": f.Keyspace, "table": f.Table, "finding_id": f.ID,
	} {
		if v != "" {
			labels[k] = v // Alertmanager treats an empty label as absent; leave it out
		}
	}
	description := f.Advice
	if description == "" {
		description = f.Summary
	}
	ann := map[string]string{
		"summary":     f.Summary,
		"description": description,
		"value":       strconv.FormatFloat(f.Value, 'f', -1, 64),
		"threshold":   strconv.FormatFloat(f.Threshold, 'f', -1, 64),
	}
	if f.Unit != "" {
		ann["unit"] = f.Unit
	}
	if f.PartitionKey != "" {
		ann["partition_key"] = boundedKey(f.PartitionKey)
	}
	if len(f.Nodes) > 1 {
		// One problem seen by several nodes is one alert: name them all.
		names := make([]string, len(f.Nodes))
		for i, n := range f.Nodes {
			names[i] = n.Node
		}
		ann["nodes"] = strings.Join(names, ",")
	}
	if t.runbookURL != "-" {
		ann["runbook_url"] = strings.ReplaceAll(t.runbookURL, "{kind}", f.Kind)
	}
	for k, v := range ann {
		if v == "" {
			delete(ann, k)
		}
	}
	a := postableAlert{Labels: labels, Annotations: ann}
	if t.externalURL != "" && f.ID != "" {
		a.GeneratorURL = strings.TrimSuffix(t.externalURL, "/") + "/#finding-" + url.PathEscape(f.ID)
	}
	return a
}

// alertForProblem is the alert of a problem: its face finding's, named
// after the kind that lends the problem its ID (so the alert keeps its
// name while the members' severities change), with the other kinds'
// evidence in an "also" annotation.
func (t alertTemplate) alertForProblem(p analyzer.Problem, cluster string) postableAlert {
	a := t.alertFor(p.Finding, cluster)
	var also []string
	for _, o := range p.Evidence {
		if o.ID == p.ID && o.Kind != p.Kind {
			a.Labels["alertname"] = AlertName(o.Kind)
		}
		if o.ID != p.Evidence[0].ID {
			also = append(also, fmt.Sprintf("%s (%s): %s", o.Kind, o.Severity, o.Summary))
		}
	}
	if len(also) > 0 {
		a.Annotations["also"] = strings.Join(also, "\n")
		a.Annotations["kinds"] = strings.Join(p.Kinds, ",")
	}
	return a
}

func sameLabels(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// keyAnnotationMax bounds the partition_key annotation as the exporter
// bounds its label: the same text, so an alert finds its series.
const keyAnnotationMax = publish.KeyLabelMax

func boundedKey(key string) string { return publish.KeyLabel(key) }
