package render

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/tools/reporttest"
)

// What --min-severity hides is said in every form, and JSON holds the same
// findings as the text with a summary: counts, hidden counts, exit code.
func TestMinSeverityHiddenIsSaid(t *testing.T) {
	r := renderSample() // 1 critical, 1 warning, 1 info
	for _, f := range []Format{Text, Markdown} {
		var b bytes.Buffer
		if err := Report(&b, r, f, finding.SeverityCritical); err != nil {
			t.Fatal(err)
		}
		want := "--min-severity critical hides 1 warning problem, 1 info problem (--min-severity info shows them)"
		if f == Markdown {
			want = mdEscape(want)
		}
		if !strings.Contains(b.String(), want) {
			t.Errorf("%s does not say what it hid (%q):\n%s", f, want, b.String())
		}
		b.Reset()
		if err := Report(&b, r, f, finding.SeverityInfo); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(b.String(), "hides") {
			t.Errorf("%s at info says it hid something:\n%s", f, b.String())
		}
	}

	var b bytes.Buffer
	if err := Report(&b, r, JSON, finding.SeverityWarning); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Summary  Summary
		Findings []finding.Finding
		Problems []analyzer.Problem
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), "{\n  \"summary\"") {
		t.Errorf("the JSON does not begin with its summary: %.80s", b.String())
	}
	for _, f := range got.Findings {
		if f.Severity < finding.SeverityWarning {
			t.Errorf("JSON at warning holds a %s finding: %s", f.Severity, f.Kind)
		}
	}
	s := got.Summary
	if len(got.Findings) != 2 || len(got.Problems) != 2 || s.HiddenFindings != 1 || s.HiddenProblems != 1 ||
		s.Problems != (SeverityCounts{1, 1, 1}) || s.ExitCode != ExitCritical || s.MinSeverity != "warning" || s.ExitCodes == "" {
		t.Errorf("JSON at warning: %d findings, %d problems, summary %+v", len(got.Findings), len(got.Problems), s)
	}
}

// Findings come first in every form: markdown's ownership tables after them.
func TestFindingsFirst(t *testing.T) {
	for _, f := range []Format{Text, Markdown} {
		var b bytes.Buffer
		if err := Report(&b, reporttest.Cluster(), f, finding.SeverityInfo); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		first, own := strings.Index(out, "CRITICAL findings"), strings.Index(out, "Nodes and token ownership")
		if f == Markdown {
			first, own = strings.Index(out, "## Findings"), strings.Index(out, "## Nodes")
		}
		if first < 0 || own < 0 || first > own {
			t.Errorf("%s: findings at %d, ownership at %d: findings must come first", f, first, own)
		}
	}
}

// Every line of the text report fits 100 characters, a long key and a long
// advice included.
func TestTextLinesWrapped(t *testing.T) {
	r := reporttest.Cluster()
	r.Findings[0].PartitionKey = strings.Repeat("k", 150)
	r.Findings[0].Advice = strings.Repeat("split the partition by a bucket ", 12)
	r.Problems = nil
	var b bytes.Buffer
	if err := Report(&b, r, Text, finding.SeverityInfo); err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(b.String(), "\n") {
		if n := utf8.RuneCountInString(line); n > lineWidth {
			t.Errorf("line %d is %d characters: %q", i+1, n, line)
		}
	}
	if !strings.Contains(strings.Join(strings.Fields(b.String()), " "), "split the partition by a bucket split") {
		t.Error("the wrapped advice lost its words")
	}
}

// A key is data: in markdown it never makes a link, code, HTML or a line.
func TestMarkdownEscapesKeys(t *testing.T) {
	r := renderSample()
	r.Findings[1].PartitionKey = "[x](http://evil) `c` <script>\n# heading"
	r.Findings[1].Summary = "key " + r.Findings[1].PartitionKey
	var b bytes.Buffer
	if err := Report(&b, r, Markdown, finding.SeverityInfo); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, bad := range []string{"[x](", "<script>", "\n# heading", "`c`"} {
		if strings.Contains(out, bad) {
			t.Errorf("markdown holds %q unescaped:\n%s", bad, out)
		}
	}
	if !strings.Contains(out, `\[x\](http://evil)`) {
		t.Errorf("the key is not in the markdown, escaped:\n%s", out)
	}
}

// A guardrail crossing reads "crossed" or a date, never "0 s against 3.0
// days", and a low cardinality its threshold per node, as on the page.
func TestTextNumbersInWords(t *testing.T) {
	r := renderSample()
	th := analyzer.DefaultThresholds()
	r.Findings = []finding.Finding{
		{Kind: analyzer.KindGuardrailCrossing, Severity: finding.SeverityInfo, Keyspace: "shop", Table: "orders",
			Value: 0, Threshold: th.GuardrailWarnLead.Seconds(), Unit: finding.UnitSeconds, Summary: "crossed"},
		{Kind: analyzer.KindLowCardinalityKey, Severity: finding.SeverityInfo, Keyspace: "shop", Table: "by_status",
			Value: 13, Threshold: 3 * th.LowCardinalityPartitionsPerNode, Unit: finding.UnitPartitions, Summary: "13"},
	}
	var b bytes.Buffer
	if err := Report(&b, r, Text, finding.SeverityInfo); err != nil {
		t.Fatal(err)
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{"(crossed a guardrail threshold", "fewer than 100 per node"} {
		if !strings.Contains(out, want) {
			t.Errorf("the text lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(out, "0 s against") {
		t.Errorf("the text counts a crossing in seconds:\n%s", b.String())
	}
}
