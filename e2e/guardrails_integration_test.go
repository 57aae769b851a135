//go:build integration

package e2e

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
)

// checkGuardrailPanel: the suggested guardrail values partmon derives from
// the fixture cluster's own partitions, in /api/v1/guardrails and on the
// page, held to the planted oversized partition (a suggested fail level
// must leave it, and every smaller partition, below it), and in the
// one-shot report's markdown. web's TestStatusPageInBrowser renders the
// panel (docs/screenshots/guardrails.png).
func checkGuardrailPanel(ctx context.Context, t *testing.T, e *env, bin string, hosts []string) {
	big := e.truth.Find(analyzer.KindOversizedPartition)
	if len(big) == 0 || big[0].ExpectedSizeBytes == 0 {
		t.Fatalf("truth.json has no %s problem with its size (reload the fixtures)", analyzer.KindOversizedPartition)
	}
	var gr analyzer.GuardrailReport
	getJSON(t, e.partmon+"/api/v1/guardrails", &gr)
	byName := map[string]analyzer.SuggestedGuardrail{}
	for _, s := range gr.Suggested {
		byName[s.Guardrail] = s
	}
	size, ok := byName["partition_size"]
	switch {
	case !ok:
		t.Fatalf("/api/v1/guardrails suggests no partition_size value; suggested: %+v", gr.Suggested)
	case size.Warn <= 0 || size.Fail <= size.Warn:
		t.Errorf("partition_size suggestion warn %.0f, fail %.0f: want 0 < warn < fail (%s)", size.Warn, size.Fail, size.Why)
	// The planted payload is a lower bound of the partition's size: a fail
	// level under twice it would refuse (or log) today's largest key.
	case size.Fail < 2*float64(big[0].ExpectedSizeBytes):
		t.Errorf("partition_size suggested fail %.0f B is under 2 × the planted %s.%s partition (%d B payload)",
			size.Fail, big[0].Keyspace, big[0].Table, big[0].ExpectedSizeBytes)
	case !strings.Contains(size.YAML, "partition_size_warn_threshold: ") || !strings.Contains(size.YAML, "partition_size_fail_threshold: "):
		t.Errorf("partition_size suggestion's cassandra.yaml lines are %q", size.YAML)
	}
	// No source partmon reads measures collections or cell values on
	// Cassandra: those must say unknown, not a number.
	for _, name := range []string{"collection_size", "items_per_collection", "column_value_size"} {
		if s := byName[name]; s.Warn != 0 || s.Fail != 0 || !strings.HasPrefix(s.Why, "unknown") {
			t.Errorf("%s suggestion %+v: want no value and an unknown reason", name, s)
		}
	}
	page := getBody(t, e.partmon+"/")
	for _, want := range []string{`id="guardrail-suggested"`, "<td>partition_size</td>", `id="guardrail-yaml"`, `id="keys"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the status page has no %s", want)
		}
	}
	t.Logf("suggested partition_size: warn %.0f B, fail %.0f B (%s)", size.Warn, size.Fail, size.Evidence)
	md := string(zooReport(ctx, t, bin, strings.Join(hosts, ","), "markdown").raw)
	m := yamlFail.FindStringSubmatch(md)
	switch {
	case !strings.Contains(md, "### Suggested values"):
		t.Errorf("partmon report --format markdown has no Suggested values section:\n%s", md)
	case m == nil:
		t.Errorf("partmon report --format markdown suggests no partition_size_fail_threshold:\n%s", md)
	default:
		if mib, _ := strconv.ParseFloat(m[1], 64); mib*(1<<20) < 2*float64(big[0].ExpectedSizeBytes) {
			t.Errorf("the report suggests partition_size_fail_threshold: %sMiB, under 2 × the planted %d B partition", m[1], big[0].ExpectedSizeBytes)
		}
	}
}

var yamlFail = regexp.MustCompile(`partition_size_fail_threshold: (\d+)MiB`)

func getBody(t *testing.T, url string) string {
	t.Helper()
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s, %v", url, resp.Status, err)
	}
	return string(body)
}

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(getBody(t, url)), v); err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
}
