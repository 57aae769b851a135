//go:build integration

package alertmanager

// Runs deploy/alertmanager/alertmanager.yml in a real Alertmanager (Debian's
// prometheus-alertmanager) and checks its routing and inhibit rules with the
// alerts partmon's rules and partmon's pusher produce. The receivers' URLs
// are pointed at a loopback server and group_wait shortened; nothing else of
// the file is changed.

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/tools/promtest"
)

// webhookSink records the alertnames/severities each receiver path was notified of.
type webhookSink struct {
	mu   sync.Mutex
	seen map[string][]string // path → "alertname/severity"
}

func (s *webhookSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var msg struct {
		Alerts []struct {
			Labels map[string]string `json:"labels"`
		} `json:"alerts"`
	}
	body, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(body, &msg)
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range msg.Alerts {
		s.seen[r.URL.Path] = append(s.seen[r.URL.Path], a.Labels["alertname"]+"/"+a.Labels["severity"])
	}
}

func (s *webhookSink) got(path, alert string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, a := range s.seen[path] {
		if a == alert {
			return true
		}
	}
	return false
}

// alertmanagerConfigForTest rewrites the receivers to the sink and group_wait to 1s.
func alertmanagerConfigForTest(t *testing.T, sink string) []byte {
	t.Helper()
	data, err := os.ReadFile(alertmanagerFile)
	if err != nil {
		t.Fatal(err)
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatal(err)
	}
	route := cfg["route"].(map[string]any)
	route["group_wait"] = "1s"
	route["group_interval"] = "1s"
	rewritten := 0
	for _, r := range cfg["receivers"].([]any) {
		for _, wh := range asList(r.(map[string]any)["webhook_configs"]) {
			m := wh.(map[string]any)
			u, err := url.Parse(m["url"].(string))
			if err != nil {
				t.Fatal(err)
			}
			m["url"] = sink + u.Path
			rewritten++
		}
	}
	if rewritten == 0 {
		t.Fatal("alertmanager.yml has no webhook receivers to point at the test sink")
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func TestAlertmanagerConfigOnRealAlertmanager(t *testing.T) {
	sink := &webhookSink{seen: map[string][]string{}}
	sinkSrv := httptest.NewServer(sink)
	t.Cleanup(sinkSrv.Close)
	am := promtest.StartAlertmanager(t, string(alertmanagerConfigForTest(t, sinkSrv.URL)), promtest.Options{})

	table := map[string]string{"cluster": "c1", "dc": "dc1", "rack": "r1", "node": "10.0.0.1", "keyspace": "shop", "table": "orders"}
	with := func(base map[string]string, kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	// The pusher sends no rack, and the key as an annotation; a sidecar's
	// pushed alert also no node or dc.
	pushed := with(table, "rack", "", "finding_id", "f1")
	alerts := []struct {
		name       string
		labels     map[string]string
		suppressed bool
	}{
		// Critical mutes the warning of the same alert and table.
		{"too large critical", with(table, "alertname", "PartmonOversizedPartition", "pushed", "true", "severity", "critical"), true},
		{"too large warning", with(table, "alertname", "PartmonOversizedPartition", "pushed", "true", "severity", "warning"), true},
		// ...but not of another table.
		{"too large warning, other table", with(table, "alertname", "PartmonOversizedPartition", "pushed", "true", "severity", "warning", "table", "carts"), false},
		// partmon's pushed alert (with the key and advice) mutes the rule's
		// that carry pushed="true" (what the shipped rules give the alerts
		// about problems partmon pushes).
		{"pushed oversized", with(pushed, "alertname", "PartmonOversizedPartition", "severity", "critical"), false},
		{"pushed hot partition", with(pushed, "alertname", "PartmonHotPartition", "severity", "warning", "table", "sessions"), false},
		{"hot key rule", with(table, "alertname", "PartmonHotPartition", "pushed", "true", "severity", "warning", "table", "sessions", "partition_key", "customer:42"), true},
		{"hot key rule, critical", with(table, "alertname", "PartmonHotPartition", "pushed", "true", "severity", "critical", "table", "sessions", "partition_key", "customer:42"), false},
		// A sidecar's pushed alert names no node or DC (every replica's
		// sidecar pushes the same problem): it mutes the rules' alerts about
		// the table on every node, whichever signal of the partition they
		// saw (a tombstone-heavy queue read by one key is also a hot key).
		{"sidecar-pushed tombstones", with(pushed, "alertname", "PartmonTombstoneHeavy", "severity", "critical", "table", "queue", "dc", "", "node", ""), false},
		{"tombstone rule, replica 1", with(table, "alertname", "PartmonTombstoneHeavy", "pushed", "true", "severity", "critical", "table", "queue"), true},
		{"tombstone rule, replica 2", with(table, "alertname", "PartmonTombstoneHeavy", "pushed", "true", "severity", "warning", "table", "queue", "node", "10.0.0.2", "rack", "r2"), true},
		{"hot key rule on the queue", with(table, "alertname", "PartmonHotPartition", "pushed", "true", "severity", "critical", "table", "queue", "partition_key", "jobs"), true},
		{"wide finding on the queue", with(table, "alertname", "PartmonAnalyzerFinding", "kind", "wide_partition", "pushed", "true", "severity", "warning", "table", "queue"), true},
		{"key-design finding on the queue", with(table, "alertname", "PartmonAnalyzerFinding", "kind", "low_cardinality_key", "pushed", "false", "severity", "warning", "table", "queue"), false},
		// An oversized partition makes the table's forecast moot.
		{"forecast", map[string]string{"alertname": "PartmonPartitionGrowthForecast", "severity": "warning", "cluster": "c1", "keyspace": "shop", "table": "orders"}, true},
		{"forecast, other table", map[string]string{"alertname": "PartmonPartitionGrowthForecast", "severity": "warning", "cluster": "c1", "keyspace": "shop", "table": "events"}, false},
		// Unrelated alerts pass.
		{"load skew", map[string]string{"alertname": "PartmonLoadSkew", "severity": "warning", "cluster": "c1", "dc": "dc1", "rack": "r1", "node": "10.0.0.1"}, false},
		{"partmon absent", map[string]string{"alertname": "PartmonAbsent", "severity": "critical"}, false},
	}
	var post []map[string]any
	now := time.Now().UTC()
	for _, a := range alerts {
		post = append(post, map[string]any{
			"labels":   a.labels,
			"startsAt": now.Add(-time.Minute).Format(time.RFC3339),
			"endsAt":   now.Add(10 * time.Minute).Format(time.RFC3339),
		})
	}
	if err := am.Post(post); err != nil {
		t.Fatal(err)
	}

	// Inhibition is evaluated when alerts are listed; give it a moment.
	var states map[string]string
	promtest.Eventually(20*time.Second, func() bool {
		states = alertStates(t, am)
		for _, a := range alerts {
			want := "active"
			if a.suppressed {
				want = "suppressed"
			}
			if states[key(a.labels)] != want {
				return false
			}
		}
		return true
	})
	for _, a := range alerts {
		want := "active"
		if a.suppressed {
			want = "suppressed"
		}
		if got := states[key(a.labels)]; got != want {
			t.Errorf("%s: state %q, want %q", a.name, got, want)
		}
	}

	// Routing: critical alerts reach the pager, warnings the chat.
	routed := promtest.Eventually(30*time.Second, func() bool {
		return sink.got("/critical", "PartmonAbsent/critical") && sink.got("/warning", "PartmonLoadSkew/warning")
	})
	if !routed || sink.got("/warning", "PartmonAbsent/critical") || sink.got("/critical", "PartmonLoadSkew/warning") {
		sink.mu.Lock()
		t.Errorf("want PartmonAbsent/critical at /critical and PartmonLoadSkew/warning at /warning, got %v", sink.seen)
		sink.mu.Unlock()
	}
}

func key(labels map[string]string) string {
	var parts []string
	for _, k := range []string{"alertname", "severity", "cluster", "dc", "rack", "node", "keyspace", "table", "partition_key", "kind", "pushed", "finding_id"} {
		parts = append(parts, k+"="+labels[k])
	}
	return strings.Join(parts, ",")
}

func alertStates(t *testing.T, am *promtest.Alertmanager) map[string]string {
	t.Helper()
	got, err := am.Alerts()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, a := range got {
		out[key(a.Labels)] = a.Status.State
	}
	return out
}
