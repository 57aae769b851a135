package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
)

// A finding folded over several nodes names them; remarks come apart from
// the findings, are not counted with them, and only down to info.
func TestRenderFoldedFindingsAndRemarks(t *testing.T) {
	r := renderSample()
	r.Findings[1].Node = ""
	r.Findings[1].Nodes = []finding.NodeValue{{Node: "10.0.0.1"}, {Node: "10.0.0.2"}}
	r.Remarks = []finding.Finding{{Kind: analyzer.KindAscendingTimeOrder, Severity: finding.SeverityInfo, Keyspace: "shop", Table: "events",
		Summary: "clusters by ts ascending"}}
	for _, format := range []string{"text", "markdown"} {
		var b bytes.Buffer
		render := renderText
		if format == "markdown" {
			render = renderMarkdown
		}
		if err := render(&b, r, finding.SeverityInfo); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		for _, want := range []string{"nodes 10.0.0.1, 10.0.0.2", "clusters by ts ascending", "not counted as findings", "1 critical, 1 warning, 1 info"} {
			if format == "markdown" && want == "1 critical, 1 warning, 1 info" {
				continue
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s report lacks %q:\n%s", format, want, out)
			}
		}
		b.Reset()
		if err := render(&b, r, finding.SeverityWarning); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "clusters by ts ascending") {
			t.Errorf("%s report at warning shows remarks", format)
		}
	}
}
