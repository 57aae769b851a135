package web

import (
	"strings"
	"testing"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

func statusPageOf(t *testing.T, latest *publish.Latest) string {
	t.Helper()
	srv := newTestHandler(t, latest, exporter.New(latest, exporter.Options{}), nil)
	latest.Publish(reporttest.Cluster())
	res := get(t, srv.URL+"/")
	if res.status != 200 {
		t.Fatalf("status %d", res.status)
	}
	return res.body
}

// The panel lists each node's thresholds (an unset one as off), the
// suggested values with their yaml, and one line per named key.
func TestGuardrailPanel(t *testing.T) {
	page := statusPageOf(t, &publish.Latest{})
	for _, want := range []string{
		`<tr><td>partition_size</td><td>warn</td><td class="num">50 MiB</td><td>127.0.0.1</td><td>nothing: logged only</td></tr>`,
		`<tr><td>partition_size</td><td>fail</td><td class="num">off (unset)</td>`,
		`<td>data_disk_usage_percentage</td><td>fail</td><td class="num">90 %</td><td>127.0.0.1</td><td>every write with a replica whose data disk is past it (replica_disk_usage)</td>`,
		"this cluster has no authentication, so no client is guarded",
		"partition_size_warn_threshold: 100MiB\npartition_size_fail_threshold: 500MiB",
		`<td>collection_size</td><td class="num">—</td>`,
		`<td><a href="/tables/shop/events">shop.events</a></td><td>acme</td><td>partition_size</td><td>warn</td>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	charts := parseSVGs(t, page, "key-chart")
	if len(charts) != 1 {
		t.Fatalf("%d key charts, want 1 (shop.events)", len(charts))
	}
	lines := charts[0].find("polyline", "key-line")
	if len(lines) != 2 || lines[0].attr("data-key") != "acme" || lines[1].attr("data-key") != "globex" {
		t.Fatalf("key lines %+v, want acme and globex", lines)
	}
	if n := len(strings.Fields(lines[0].attr("points"))); n != 4 {
		t.Errorf("acme has %d points drawn, want its 4", n)
	}
	// Larger is higher: acme's last point (40 MiB, the chart's top, y 8) is
	// above its first (34 MiB: 8 + 150 × 6/40 = 30.5).
	pts := strings.Fields(lines[0].attr("points"))
	first, last := strings.Split(pts[0], ","), strings.Split(pts[3], ",")
	if first[1] != "30.5" || last[1] != "8.0" {
		t.Errorf("acme from %v to %v: want it to rise to the top (y 8.0)", first, last)
	}
}

func TestGuardrailPanelHidesKeys(t *testing.T) {
	for _, mode := range []keys.Mode{keys.Hashed, keys.Omitted} {
		page := statusPageOf(t, &publish.Latest{Keys: keys.New(mode, []byte("0123456789abcdef0123456789abcdef"), 0)})
		for _, plain := range []string{"acme", "globex"} {
			if strings.Contains(page, plain) {
				t.Errorf("%s: the page shows key %q", mode, plain)
			}
		}
	}
}
