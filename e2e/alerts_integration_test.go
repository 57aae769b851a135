//go:build integration

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
)

// alertmanagerConfig routes everything to the test's webhook sink, resolved
// notifications included, with no grouping delay worth the name. It has no
// inhibit rules (deploy/alertmanager/alertmanager.yml's are checked in
// deploy/alertmanager/alertmanager_integration_test.go), so every alert stays active.
func alertmanagerConfig(sinkURL string) string {
	return fmt.Sprintf(`route:
  receiver: sink
  group_by: [alertname, cluster, keyspace, table, node]
  group_wait: 1s
  group_interval: 1s
  repeat_interval: 1h
receivers:
  - name: sink
    webhook_configs:
      - url: %q
        send_resolved: true
`, sinkURL+"/notify")
}

// notified is one alert of one webhook notification.
type notified struct {
	Status string            `json:"status"` // firing or resolved
	Labels map[string]string `json:"labels"`
	EndsAt time.Time         `json:"endsAt"`
}

// webhookSink records every alert Alertmanager notifies it of.
type webhookSink struct {
	mu   sync.Mutex
	seen []notified
}

func newWebhookSink() *webhookSink { return &webhookSink{} }

func (s *webhookSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		Alerts []notified `json:"alerts"`
	}
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seen = append(s.seen, msg.Alerts...)
}

// resolved returns the resolved notifications whose labels include want.
func (s *webhookSink) resolved(want map[string]string) []notified {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []notified
	for _, n := range s.seen {
		if n.Status == "resolved" && hasLabels(n.Labels, want) {
			out = append(out, n)
		}
	}
	return out
}

// hasLabels: labels has every label of want; a wanted "*" is any value but
// none (finding_id "*": a pushed alert, not a rule's alert of the same name).
func hasLabels(labels, want map[string]string) bool {
	for k, v := range want {
		if v == "*" && labels[k] != "" {
			continue
		}
		if labels[k] != v {
			return false
		}
	}
	return true
}

func matching(alerts []promtest.Alert, want map[string]string) []promtest.Alert {
	var out []promtest.Alert
	for _, a := range alerts {
		if hasLabels(a.Labels, want) {
			out = append(out, a)
		}
	}
	return out
}

// checkRuleAlert: Prometheus's PartmonOversizedPartition (critical) fires for
// the planted oversized partition on every replica and reaches Alertmanager
// with the labels the routing and inhibit rules use.
func checkRuleAlert(t *testing.T, e *env) {
	var want []map[string]string
	for _, p := range problems(t, e.truth, analyzer.KindOversizedPartition) {
		for _, node := range p.Nodes {
			// pushed="true": the rule's alert, not partmon's pushed one of the same name.
			want = append(want, map[string]string{"alertname": "PartmonOversizedPartition", "pushed": "true", "severity": "critical",
				"cluster": e.cluster, "keyspace": p.Keyspace, "table": p.Table, "node": node})
		}
	}
	var alerts []promtest.Alert
	var err error
	ok := promtest.Eventually(90*time.Second, func() bool {
		if alerts, err = e.am.Alerts(); err != nil {
			return false
		}
		for _, w := range want {
			if len(matching(alerts, w)) == 0 {
				return false
			}
		}
		return true
	})
	if err != nil {
		t.Fatalf("listing Alertmanager's alerts: %v", err)
	}
	for _, w := range want {
		got := matching(alerts, w)
		if len(got) == 0 {
			t.Errorf("no alert %v in Alertmanager after 90 s; it has: %s", w, describe(matching(alerts, map[string]string{"alertname": w["alertname"]})))
			continue
		}
		for _, a := range got {
			if a.Labels["dc"] == "" || a.Labels["rack"] == "" {
				t.Errorf("alert %v has no dc or rack label: %v", w, a.Labels)
			}
			if !strings.HasPrefix(a.GeneratorURL, e.prom.URL) {
				t.Errorf("alert %v has generatorURL %q, want one of the test's Prometheus %s", w, a.GeneratorURL, e.prom.URL)
			}
			if a.Annotations["runbook_url"] == "" || !strings.Contains(a.Annotations["summary"], w["keyspace"]+"."+w["table"]) {
				t.Errorf("alert %v: annotations %v lack the runbook or the table", w, a.Annotations)
			}
		}
	}
	if ok {
		t.Logf("%d PartmonOversizedPartition critical alerts from Prometheus in Alertmanager", len(want))
	}
}

// findingsResponse is the body of partmon's /api/v1/findings.
type findingsResponse struct {
	Cluster  string             `json:"cluster"`
	Findings []finding.Finding  `json:"findings"`
	Problems []analyzer.Problem `json:"problems"`
}

func fetchFindings(base string) (findingsResponse, error) {
	var out findingsResponse
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(base + "/api/v1/findings")
	if err != nil {
		return out, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return out, fmt.Errorf("GET /api/v1/findings: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return out, fmt.Errorf("decoding /api/v1/findings: %w", err)
	}
	return out, nil
}

// pushed reports whether partmon pushes problem p (alertmanager.Pusher's
// rule with the default min_severity): warning or worse, and one of its
// findings names a key or is of a DefaultAlertKinds kind.
func pushed(p analyzer.Problem) bool {
	return p.Severity >= finding.SeverityWarning && slices.ContainsFunc(p.Evidence, func(f finding.Finding) bool {
		return f.PartitionKey != "" || slices.Contains(alertmanager.DefaultAlertKinds, f.Kind)
	})
}

// alertNameOf is the alertname of problem p's alert: the kind of the
// finding that lends p its ID.
func alertNameOf(p analyzer.Problem) string {
	for _, f := range p.Evidence {
		if f.ID == p.ID {
			return alertmanager.AlertName(f.Kind)
		}
	}
	return alertmanager.AlertName(p.Kind)
}

// requiredAlert is a pushed alert a planted problem must produce: one alert
// for the problem that holds a finding of this kind on this table, that
// finding naming every replica (nodes).
type requiredAlert struct {
	kind, keyspace, table string
	nodes                 []string
}

// checkPushedAlerts: every problem partmon pushes (the kinds one partition
// shows, gathered) is one alert in Alertmanager under the alertname of the
// kind that lends it its ID, with the problem's labels, partition key and
// advice in annotations; and the planted problems it must find are among
// them, one alert each, their finding measured on each of the problem's
// replicas.
func checkPushedAlerts(t *testing.T, e *env) {
	var required []requiredAlert
	need := func(kind, keyspace, table string, nodes []string) {
		required = append(required, requiredAlert{kind: kind, keyspace: keyspace, table: table, nodes: slices.Sorted(slices.Values(nodes))})
	}
	for _, kind := range []string{analyzer.KindOversizedPartition, analyzer.KindTombstoneHeavy} {
		for _, p := range problems(t, e.truth, kind) {
			need(kind, p.Keyspace, p.Table, p.Nodes)
		}
	}
	need(analyzer.KindOversizedPartition, e2eKeyspace, e2eTable, testcluster.Hosts()) // RF 3 on 3 nodes

	var problemsFound []string
	var count, keyed int
	promtest.Eventually(90*time.Second, func() bool {
		problemsFound, count, keyed = comparePushed(e, required)
		return len(problemsFound) == 0
	})
	for _, p := range problemsFound {
		t.Error(p)
	}
	if count == 0 {
		t.Error("partmon pushes none of its problems")
	}
	if len(problemsFound) == 0 {
		t.Logf("%d pushed alerts in Alertmanager match partmon's problems, %d of them with a partition key (%d required by truth.json and pm_e2e)",
			count, keyed, len(required))
	}
}

// findingNodes are the nodes that measured f, sorted.
func findingNodes(f finding.Finding) []string {
	var out []string
	for _, n := range f.Nodes {
		out = append(out, n.Node)
	}
	if len(out) == 0 && f.Node != "" {
		out = []string{f.Node}
	}
	slices.Sort(out)
	return out
}

// comparePushed returns what is wrong now, how many pushed problems it
// compared, and how many of them name a partition key.
func comparePushed(e *env, required []requiredAlert) (bad []string, n, keyed int) {
	alerts, err := e.am.Alerts()
	if err != nil {
		return []string{fmt.Sprintf("listing Alertmanager's alerts: %v", err)}, 0, 0
	}
	fr, err := fetchFindings(e.partmon)
	if err != nil {
		return []string{err.Error()}, 0, 0
	}
	if fr.Cluster != e.cluster {
		bad = append(bad, fmt.Sprintf("partmon reports cluster %q, the cluster is %q", fr.Cluster, e.cluster))
	}
	for _, p := range fr.Problems {
		if !pushed(p) {
			continue
		}
		n++
		if p.PartitionKey != "" {
			keyed++
		}
		name := alertNameOf(p)
		got := matching(alerts, map[string]string{"alertname": name, "finding_id": p.ID})
		if len(got) != 1 {
			bad = append(bad, fmt.Sprintf("problem %s (%s %v on %v %s.%s key %q): %d alerts %s in Alertmanager, want 1",
				p.ID, p.Severity, p.Kinds, findingNodes(p.Finding), p.Keyspace, p.Table, p.PartitionKey, len(got), name))
			continue
		}
		a := got[0]
		wantLabels := map[string]string{"severity": p.Severity.String(), "cluster": e.cluster, "dc": p.DC,
			"node": p.Node, "keyspace": p.Keyspace, "table": p.Table}
		for k, v := range wantLabels {
			if a.Labels[k] != v {
				bad = append(bad, fmt.Sprintf("alert %s for problem %s: label %s=%q, want %q", name, p.ID, k, a.Labels[k], v))
			}
		}
		wantAnn := map[string]string{"summary": p.Summary, "description": p.Advice, "partition_key": p.PartitionKey}
		if p.Advice == "" {
			wantAnn["description"] = p.Summary
		}
		for k, v := range wantAnn {
			if a.Annotations[k] != v {
				bad = append(bad, fmt.Sprintf("alert %s for problem %s: annotation %s=%q, want %q", name, p.ID, k, a.Annotations[k], v))
			}
		}
		if a.Status.State != "active" {
			bad = append(bad, fmt.Sprintf("alert %s for problem %s is %s, want active", name, p.ID, a.Status.State))
		}
	}
	for _, r := range required {
		p, f, ok := problemWith(fr.Problems, r)
		if !ok {
			bad = append(bad, fmt.Sprintf("no problem of partmon's holds a %s finding on %s.%s; its findings of that kind: %s",
				r.kind, r.keyspace, r.table, describeFindings(fr.Findings, r.kind)))
			continue
		}
		got := matching(alerts, map[string]string{"alertname": alertNameOf(p), "finding_id": p.ID, "cluster": e.cluster})
		if len(got) != 1 {
			bad = append(bad, fmt.Sprintf("%d pushed alerts for the problem %s %v on %s.%s in Alertmanager, want 1", len(got), p.ID, p.Kinds, r.keyspace, r.table))
			continue
		}
		if nodes := findingNodes(f); !slices.Equal(nodes, r.nodes) {
			bad = append(bad, fmt.Sprintf("pushed alert of problem %s: its %s finding is measured on %v, the problem's replicas are %v",
				p.ID, r.kind, nodes, r.nodes))
		}
		if got[0].Annotations["description"] == "" {
			bad = append(bad, fmt.Sprintf("pushed alert of problem %s has no advice: %v", p.ID, got[0].Annotations))
		}
	}
	return bad, n, keyed
}

// problemWith is the problem holding a finding of r's kind on r's table.
func problemWith(ps []analyzer.Problem, r requiredAlert) (analyzer.Problem, finding.Finding, bool) {
	for _, p := range ps {
		for _, f := range p.Evidence {
			if f.Kind == r.kind && f.Keyspace == r.keyspace && f.Table == r.table {
				return p, f, true
			}
		}
	}
	return analyzer.Problem{}, finding.Finding{}, false
}

// checkResolution: partmon resolves its pushed alert once the problem is
// gone. pm_e2e's oversized-partition alerts are active; DROP KEYSPACE takes
// the partition away; Alertmanager must stop listing the alerts and notify
// their resolution well before the endsAt partmon gave them.
func checkResolution(ctx context.Context, t *testing.T, e *env, s *gocql.Session) {
	hosts := testcluster.Hosts()
	selector := map[string]string{"alertname": alertmanager.AlertName(analyzer.KindOversizedPartition), "finding_id": "*", "keyspace": e2eKeyspace}
	alerts, err := e.am.Alerts()
	if err != nil {
		t.Fatal(err)
	}
	before := matching(alerts, selector)
	if len(before) != 1 {
		t.Fatalf("before the drop, %d pushed %s alerts for %s, want 1 (one problem): %s", len(before), selector["alertname"], e2eKeyspace, describe(before))
	}
	// Alertmanager ends an alert by itself at endsAt (3 × partmon's resend
	// interval, 1m by default): later than the bound below, so only
	// partmon's resolve can end it in time.
	if until := time.Until(before[0].EndsAt); until < 2*time.Minute {
		t.Errorf("pushed alert %v ends in %s by itself; the test cannot tell a resolve from expiry", before[0].Labels, until)
	}
	id := before[0].Labels["finding_id"]
	fr, err := fetchFindings(e.partmon)
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, f := range fr.Findings {
		if f.ID == id {
			nodes = findingNodes(f)
		}
	}
	if want := slices.Sorted(slices.Values(hosts)); !slices.Equal(nodes, want) {
		t.Fatalf("before the drop, the finding %s of the pushed alert is measured on %v, want every replica %v", id, nodes, want)
	}

	dropped := time.Now()
	if err := s.Query("DROP KEYSPACE " + e2eKeyspace).WithContext(ctx).Exec(); err != nil {
		t.Fatalf("dropping %s: %v", e2eKeyspace, err)
	}
	const bound = 90 * time.Second
	var still []promtest.Alert
	gone := promtest.Eventually(bound, func() bool {
		alerts, err := e.am.Alerts()
		if err != nil {
			return false
		}
		still = matching(alerts, selector)
		return len(still) == 0
	})
	if !gone {
		t.Fatalf("%d pushed alerts for %s still active %s after DROP KEYSPACE: %s", len(still), e2eKeyspace, bound, describe(still))
	}
	resolvedAfter := time.Since(dropped)
	sel := map[string]string{"alertname": selector["alertname"], "keyspace": e2eKeyspace, "finding_id": id}
	var got []notified
	promtest.Eventually(15*time.Second, func() bool {
		got = e.sink.resolved(sel)
		return len(got) > 0
	})
	if len(got) == 0 {
		t.Errorf("Alertmanager sent no resolved notification for %v", sel)
	} else if end := got[len(got)-1].EndsAt; end.Before(dropped) || end.After(time.Now()) {
		t.Errorf("resolved %v with endsAt %s, want between the drop (%s) and now", sel, end, dropped)
	}
	if fr, err = fetchFindings(e.partmon); err != nil {
		t.Fatal(err)
	}
	for _, f := range fr.Findings {
		if f.Keyspace == e2eKeyspace {
			t.Errorf("partmon still reports %s %s.%s on %v after the drop", f.Kind, f.Keyspace, f.Table, findingNodes(f))
		}
	}
	t.Logf("pushed alerts for %s resolved in Alertmanager %s after DROP KEYSPACE", e2eKeyspace, resolvedAfter.Round(100*time.Millisecond))
}

func describe(alerts []promtest.Alert) string {
	if len(alerts) == 0 {
		return "none"
	}
	var parts []string
	for _, a := range alerts {
		parts = append(parts, fmt.Sprintf("%v (%s, ends %s)", a.Labels, a.Status.State, a.EndsAt.Format(time.RFC3339)))
	}
	return strings.Join(parts, "; ")
}

func describeFindings(fs []finding.Finding, kind string) string {
	var parts []string
	for _, f := range fs {
		if f.Kind == kind {
			parts = append(parts, fmt.Sprintf("%s %s.%s on %v (%s)", f.Kind, f.Keyspace, f.Table, findingNodes(f), f.Severity))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, "; ")
}
