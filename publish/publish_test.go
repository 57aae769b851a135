package publish

import (
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/reporttest"
)

func TestParseMode(t *testing.T) {
	tests := []struct {
		in      string
		want    Mode
		wantErr bool
	}{
		{in: "sidecar", want: ModeSidecar},
		{in: " Cluster ", want: ModeCluster},
		{in: "", wantErr: true},
		{in: "daemonset", wantErr: true},
	}
	for _, tc := range tests {
		got, err := ParseMode(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseMode(%q) = %q, %v; want %q, error %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

// The fixture's three nodes: only 127.0.0.1 is Targeted.
func TestAudience(t *testing.T) {
	r := reporttest.Cluster()
	r.Nodes[2].DC = "dc2" // 127.0.0.3
	tests := []struct {
		name        string
		audience    Audience
		wantSpeaks  []string
		wantOwn     string // "" = none
		wantCluster string
	}{
		{name: "cluster", audience: NewAudience("", ModeCluster, nil),
			wantSpeaks: []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}, wantCluster: "demo"},
		{name: "cluster speaking for one", audience: NewAudience("prod", ModeCluster, []string{"127.0.0.3"}),
			wantSpeaks: []string{"127.0.0.3"}, wantCluster: "prod"},
		{name: "cluster for dc2", audience: NewAudience("", ModeCluster, nil).ForDatacenters([]string{"dc2"}),
			wantSpeaks: []string{"127.0.0.3"}, wantCluster: "demo"},
		{name: "cluster for both DCs", audience: NewAudience("", ModeCluster, nil).ForDatacenters([]string{"dc2", "dc1"}),
			wantSpeaks: []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}, wantCluster: "demo"},
		{name: "cluster for a DC the ring lacks", audience: NewAudience("", ModeCluster, nil).ForDatacenters([]string{"dc9"}),
			wantCluster: "demo"},
		{name: "sidecar ignores DCs: the targeted node", audience: NewAudience("", ModeSidecar, nil).ForDatacenters([]string{"dc2"}),
			wantSpeaks: []string{"127.0.0.1"}, wantOwn: "127.0.0.1", wantCluster: "demo"},
		{name: "sidecar: the targeted node", audience: NewAudience("", ModeSidecar, nil),
			wantSpeaks: []string{"127.0.0.1"}, wantOwn: "127.0.0.1", wantCluster: "demo"},
		{name: "sidecar speaking for .2", audience: NewAudience("", ModeSidecar, []string{"127.0.0.2"}),
			wantSpeaks: []string{"127.0.0.2"}, wantOwn: "127.0.0.2", wantCluster: "demo"},
		{name: "sidecar speaking for two: the first in report order", audience: NewAudience("", ModeSidecar, []string{"127.0.0.3", "127.0.0.2"}),
			wantSpeaks: []string{"127.0.0.2", "127.0.0.3"}, wantOwn: "127.0.0.2", wantCluster: "demo"},
		{name: "sidecar speaking for an unknown node", audience: NewAudience("", ModeSidecar, []string{"10.9.9.9"}),
			wantCluster: "demo"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			speaks := tc.audience.NodeFilter(r)
			var got []string
			for _, n := range r.Nodes {
				if speaks(n.Address) {
					got = append(got, n.Address)
				}
			}
			if strings.Join(got, ",") != strings.Join(tc.wantSpeaks, ",") {
				t.Errorf("speaks for %v, want %v", got, tc.wantSpeaks)
			}
			own, ok := tc.audience.OwnNode(r)
			if ok != (tc.wantOwn != "") || own.Address != tc.wantOwn {
				t.Errorf("OwnNode = %q, %v; want %q", own.Address, ok, tc.wantOwn)
			}
			if shared := tc.audience.Sidecar() || strings.HasPrefix(tc.name, "cluster for"); tc.audience.Shared() != shared {
				t.Errorf("Shared = %v, want %v", !shared, shared)
			}
			if c := tc.audience.ClusterName(r); c != tc.wantCluster {
				t.Errorf("ClusterName = %q, want %q", c, tc.wantCluster)
			}
			if !SpeaksForFinding(finding.Finding{Keyspace: "shop"}, speaks) {
				t.Error("a node-less finding is not spoken for")
			}
			// A finding folded over nodes is spoken for where one of them is.
			for _, n := range r.Nodes {
				folded := finding.Finding{Keyspace: "shop", Nodes: []finding.NodeValue{{Node: "10.9.9.9"}, {Node: n.Address}}}
				if want := speaks("10.9.9.9") || speaks(n.Address); SpeaksForFinding(folded, speaks) != want {
					t.Errorf("finding on 10.9.9.9 and %s: spoken for %v, want %v", n.Address, !want, want)
				}
			}
		})
	}
}

func TestFailed(t *testing.T) {
	tests := []struct {
		name    string
		sources []model.SourceStatus
		want    bool
	}{
		{name: "no sources", want: false},
		{name: "one ok", sources: []model.SourceStatus{{State: model.StateError}, {State: model.StateOK}}, want: false},
		{name: "none ok", sources: []model.SourceStatus{{State: model.StateError}, {State: model.StateUnsupported}}, want: true},
	}
	for _, tc := range tests {
		if got := Failed(&analyzer.Report{Sources: tc.sources}); got != tc.want {
			t.Errorf("%s: Failed = %v, want %v", tc.name, got, tc.want)
		}
	}
}
