package analyzer

import (
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// writeSnap is one 5.0 node with authentication and collection_size set
// (warn 4 KiB, fail 8 KiB), whose log warned of column items n times, 15 s
// apart from t0, 432 bytes more each time (the pace seen on a real node);
// refused adds the fail line. other adds a second table with a collection
// named items.
func writeSnap(now time.Time, n int, refused, other bool) *model.Snapshot {
	b := newSnap().ring("dc1", 1)
	b.s.Taken = now
	b.keyspace("ks", simple("1"),
		table("docs", pk("id", "text", 0), col("items", "set<text>")),
		table("calm", pk("k", "int", 0), col("tags", "set<text>"), col("note", "text")))
	if other {
		b.keyspace("ks2", simple("1"), table("other", pk("id", "int", 0), col("items", "list<int>")))
	}
	nd := b.nodeData(hostID(1))
	nd.Settings = map[string]string{"collection_size_warn_threshold": "4KiB", "collection_size_fail_threshold": "8KiB",
		"authenticator": "PasswordAuthenticator"}
	warn := model.LogEvidence{Kind: model.LogWriteGuardrail, Guardrail: "collection_size", Column: "items", Threshold: 4096,
		Where: "system_views.system_logs", First: t0}
	for i := 0; i < n; i++ {
		at := t0.Add(time.Duration(i) * 15 * time.Second)
		warn.Series = append(warn.Series, model.GuardrailPoint{At: at.Unix(), Value: int64(4464 + 432*i)})
		warn.Value, warn.Last, warn.Count = int64(4464+432*i), at, int64(i+1)
	}
	nd.LogEvidence = append(nd.LogEvidence, warn)
	if refused {
		nd.LogEvidence = append(nd.LogEvidence, model.LogEvidence{Kind: model.LogWriteGuardrail, Guardrail: "collection_size", Column: "items",
			Failure: true, Value: 8208, Threshold: 8192, Count: 1, First: now.Add(-time.Second), Last: now.Add(-time.Second), Where: "system_views.system_logs"})
	}
	return b.s
}

func writeCrossingOf(r *Report) *GuardrailCrossing {
	for i, c := range r.Guardrails.Crossings {
		if c.Column == "items" && c.Guardrail == "collection_size" {
			return &r.Guardrails.Crossings[i]
		}
	}
	return nil
}

func writeFindings(r *Report) []finding.Finding {
	var out []finding.Finding
	for _, f := range r.Findings {
		if f.Kind == KindGuardrailCrossing {
			out = append(out, f)
		}
	}
	return out
}

// Six warnings over 75 s, growing 28.8 bytes a second from 4,464: the fit
// reaches 8,192 about 129 s after the first, 49 s after the snapshot —
// within the 75 s the warnings span. The fail level refuses an ordinary
// role: critical, on the one table holding a collection named items.
func TestWriteGuardrailForecast(t *testing.T) {
	now := t0.Add(80 * time.Second)
	r := Analyze(writeSnap(now, 6, false, false), history.New(history.Limits{}), DefaultThresholds())
	c := writeCrossingOf(r)
	if c == nil {
		t.Fatalf("no crossing of column items: %+v", r.Guardrails.Crossings)
	}
	want := t0.Unix() + 130
	if c.At < want-2 || c.At > want+2 || c.Keyspace != "ks" || c.Table != "docs" || c.Key != "" || c.Level != "fail" || c.Refuses == "" {
		t.Fatalf("crossing %+v, want at %d on ks.docs, no key, refusing", c, want)
	}
	got := writeFindings(r)
	if len(got) != 1 || got[0].Severity != finding.SeverityCritical || got[0].Table != "docs" || got[0].PartitionKey != "" ||
		!strings.Contains(got[0].Summary, "column items of ks.docs") || !strings.Contains(got[0].Summary, "name no key") ||
		!strings.Contains(got[0].Summary, "will refuse") {
		t.Fatalf("findings %+v, want one critical on ks.docs", got)
	}
	for _, f := range r.Findings {
		if f.Table == "calm" {
			t.Errorf("the calm table has a finding: %s", f.Summary)
		}
	}
	s := suggestionOf(r, "collection_size")
	if s.Warn != 4096 || s.Fail < 2*6624 || s.Why != "" {
		t.Errorf("suggestion %+v, want warn 4 KiB and fail above twice the largest figure", s)
	}
}

func suggestionOf(r *Report, name string) SuggestedGuardrail {
	for _, s := range r.Guardrails.Suggested {
		if s.Guardrail == name {
			return s
		}
	}
	return SuggestedGuardrail{}
}

// A refused write is a critical finding at once, with the time of the
// refusal; a column name two tables hold leaves the table unknown and
// says which; a series too short for the lead ahead, or gone quiet,
// forecasts nothing.
func TestWriteGuardrailRefusedAndUndecided(t *testing.T) {
	now := t0.Add(80 * time.Second)
	r := Analyze(writeSnap(now, 6, true, true), history.New(history.Limits{}), DefaultThresholds())
	c := writeCrossingOf(r)
	if c == nil || !c.Crossed || c.Refused != 1 || c.RefusedAt != now.Add(-time.Second).Unix() || c.Table != "" ||
		strings.Join(c.Tables, ",") != "ks.docs,ks2.other" {
		t.Fatalf("crossing %+v, want crossed, one refusal, table undecided between ks.docs and ks2.other", c)
	}
	got := writeFindings(r)
	if len(got) != 1 || got[0].Severity != finding.SeverityCritical || got[0].Table != "" || !strings.Contains(got[0].Summary, "1 write refused") ||
		!strings.Contains(got[0].Summary, "ks.docs, ks2.other all have") {
		t.Fatalf("findings %+v", got)
	}

	short := Analyze(writeSnap(t0.Add(30*time.Second), 3, false, false), history.New(history.Limits{}), DefaultThresholds())
	if c := writeCrossingOf(short); c == nil || c.At != 0 || c.Why == "" {
		t.Errorf("3 warnings over 30 s: %+v, want no forecast", c)
	}
	quiet := Analyze(writeSnap(t0.Add(3*time.Hour), 6, false, false), history.New(history.Limits{}), DefaultThresholds())
	if c := writeCrossingOf(quiet); c == nil || c.At != 0 || !strings.Contains(c.Why, "stopped") || len(writeFindings(quiet)) != 0 {
		t.Errorf("quiet for hours: %+v, want no forecast and no finding", c)
	}
	none := Analyze(writeSnap(now, 0, false, false), history.New(history.Limits{}), DefaultThresholds())
	if s := suggestionOf(none, "collection_size"); s.Warn != 0 || !strings.HasPrefix(s.Why, "unknown") {
		t.Errorf("no lines: suggestion %+v, want unknown", s)
	}
}
