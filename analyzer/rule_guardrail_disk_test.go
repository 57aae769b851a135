package analyzer

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
)

// diskSnap is one 5.0 node whose data directories hold used bytes, on a
// disk of 1 TiB capped at 100 GiB by data_disk_usage_max_disk_size, with
// the data_disk source's read at the snapshot's time.
func diskSnap(at time.Time, authenticator string, used int64) *model.Snapshot {
	b := newSnap().ring("dc1", 1)
	b.s.Taken = at
	nd := b.nodeData(hostID(1))
	nd.Settings = map[string]string{
		"data_disk_usage_percentage_warn_threshold": "50", "data_disk_usage_percentage_fail_threshold": "70",
		model.DataDiskMaxSizeSetting: "100GiB", "authenticator": authenticator,
	}
	nd.DataDisk = &model.DataDisk{UsedBytes: used, UsableBytes: 1024*gib - used, Directories: 1}
	b.s.Sources = append(b.s.Sources, model.SourceStatus{Source: history.DataDiskSource, Node: nd.Address, State: model.StateOK, Taken: at, LastSuccess: at})
	return b.s
}

// diskFindings records hours+1 hourly reads of a disk growing perHour from
// start and analyzes the last.
func diskFindings(t *testing.T, authenticator string, start, perHour int64, hours int) (*Report, []finding.Finding) {
	t.Helper()
	h := history.New(history.Limits{})
	var s *model.Snapshot
	for i := 0; i <= hours; i++ {
		s = diskSnap(t0.Add(time.Duration(i)*time.Hour), authenticator, start+int64(i)*perHour)
		record(h, s)
	}
	r := Analyze(s, h, DefaultThresholds())
	var got []finding.Finding
	for _, f := range r.Findings {
		if f.Kind == KindGuardrailCrossing {
			got = append(got, f)
		}
	}
	return r, got
}

// A data disk growing 1 GiB an hour from 40 GiB of a 100 GiB cap: at 48 %
// after 8 h it crosses warn (50 %) in about 2 h and fail (70 %) in 22 h.
// With authentication the fail level refuses writes: critical. Without it,
// nothing is refused: a warning before the warn level. A flat disk far
// from both, and one that has crossed, are judged too.
func TestDiskGuardrailCrossing(t *testing.T) {
	for _, tc := range []struct {
		name           string
		authenticator  string
		start, perHour int64
		sev            finding.Severity
		hours          float64 // the finding's value, in hours
		summary        string
	}{
		{"refusing fail level ahead", "PasswordAuthenticator", 40 * gib, gib, finding.SeverityCritical, 22, "it will refuse every write"},
		{"no authentication: warn ahead", "AllowAllAuthenticator", 40 * gib, gib, finding.SeverityWarning, 2, "warns the clients"},
		{"fail crossed", "PasswordAuthenticator", 60 * gib, 2 * gib, finding.SeverityCritical, 0, "crossed; it will refuse"},
		{"flat and far", "PasswordAuthenticator", 10 * gib, 0, finding.SeverityNone, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, got := diskFindings(t, tc.authenticator, tc.start, tc.perHour, 8)
			if tc.sev == finding.SeverityNone {
				if len(got) != 0 {
					t.Fatalf("findings %+v, want none", got)
				}
				return
			}
			if len(got) != 1 {
				t.Fatalf("findings %+v, want one", got)
			}
			f := got[0]
			if f.Severity != tc.sev || f.Node != addr(1) || f.Keyspace != "" || f.PartitionKey != "" {
				t.Errorf("finding %v on %q (%s.%s key %q), want %v on %s with no table or key", f.Severity, f.Node, f.Keyspace, f.Table, f.PartitionKey, tc.sev, addr(1))
			}
			if d := f.Value/3600 - tc.hours; d < -0.05 || d > 0.05 {
				t.Errorf("value %.2f h, want %.0f h", f.Value/3600, tc.hours)
			}
			if !strings.Contains(f.Summary, tc.summary) {
				t.Errorf("summary %q, want it to say %q", f.Summary, tc.summary)
			}
			for _, c := range r.Guardrails.Crossings {
				if c.Node != addr(1) || c.Guardrail != diskGuardrail {
					t.Errorf("crossing %+v, want only the node's data disk", c)
				}
			}
		})
	}
}

// The forecast of the fail level aims at the bytes where the ceiling of
// the used share passes 70 % (above it, as Threshold.guard compares): 70 GiB
// of the 100 GiB cap, 22 h after 48 GiB; its range holds it.
func TestDiskGuardrailForecastDate(t *testing.T) {
	r, _ := diskFindings(t, "PasswordAuthenticator", 40*gib, gib, 8)
	var fail *GuardrailCrossing
	for i, c := range r.Guardrails.Crossings {
		if c.Level == "fail" {
			fail = &r.Guardrails.Crossings[i]
		}
	}
	if fail == nil {
		t.Fatalf("no fail crossing in %+v", r.Guardrails.Crossings)
	}
	want := t0.Add(30 * time.Hour).Unix()
	if d := fail.At - want; d < -60 || d > 60 || fail.Earliest > fail.At || fail.Latest < fail.At || fail.Current != 48 || fail.Crossed {
		t.Errorf("fail crossing %+v, want at %d (±60 s) within its range, 48 %% now", fail, want)
	}
}

// The history keeps a node's used bytes at the data_disk source's last
// success: a snapshot whose read failed (same LastSuccess) adds no point;
// the series is bounded and survives the state file.
func TestDiskHistory(t *testing.T) {
	h := history.New(history.Limits{MaxPoints: 8})
	for i := 0; i < 20; i++ {
		record(h, diskSnap(t0.Add(time.Duration(i)*time.Hour), "PasswordAuthenticator", int64(i+1)*gib))
	}
	stale := diskSnap(t0.Add(25*time.Hour), "PasswordAuthenticator", 99*gib)
	stale.Sources[0].LastSuccess = t0.Add(19 * time.Hour) // the last good read
	record(h, stale)
	pts := h.Disks[hostID(1)]
	if len(pts) != 8 || pts[len(pts)-1] != (history.SizePoint{t0.Add(19 * time.Hour).Unix(), 20 * gib}) {
		t.Fatalf("disk history %v, want 8 points ending at the last good read", pts)
	}
	data, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	back, err := history.Decode(data, history.Limits{MaxPoints: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Disks[hostID(1)]) != 8 {
		t.Errorf("decoded disk history %v, want the 8 points", back.Disks)
	}
}
