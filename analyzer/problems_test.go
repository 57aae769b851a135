package analyzer

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/partmon/partmon/analyzer/finding"
)

func TestGroupProblems(t *testing.T) {
	f := func(id, kind string, sev finding.Severity, table, key, advice string) finding.Finding {
		return finding.Finding{ID: id, Kind: kind, Severity: sev, Cluster: "c", Keyspace: "ks", Table: table, PartitionKey: key,
			Summary: kind + " evidence", Advice: advice}
	}
	big := f("o", KindOversizedPartition, finding.SeverityWarning, "t", "", "add a day bucket of ts to the partition key (sensor): 60 MiB → 2 MiB")
	unbucketed := f("u", KindUnbucketedTimeSeries, finding.SeverityInfo, "t", "", "add an hour bucket of ts to the partition key (sensor)")
	cases := []struct {
		name       string
		in         []finding.Finding
		wantGroups [][]string // member IDs per problem, the face first
		wantIDs    []string
		advice     []string // per problem: must contain
		notAdvice  []string // per problem: must not contain
	}{
		{name: "the issue's table: oversized and unbucketed are one problem with one split advice",
			in: []finding.Finding{big, unbucketed}, wantGroups: [][]string{{"o", "u"}}, wantIDs: []string{"o"},
			advice: []string{"add a day bucket"}, notAdvice: []string{"hour bucket"}},
		{name: "the ID stays the oversized one when unbucketed is the more severe",
			in:         []finding.Finding{f("u", KindUnbucketedTimeSeries, finding.SeverityCritical, "t", "", "hour"), f("o", KindOversizedPartition, finding.SeverityWarning, "t", "", "day")},
			wantGroups: [][]string{{"u", "o"}}, wantIDs: []string{"o"}, advice: []string{"hour"}, notAdvice: []string{"day"}},
		{name: "other tables and other kinds stay apart",
			in: []finding.Finding{big, f("x", KindOversizedPartition, finding.SeverityWarning, "t2", "", ""), f("l", KindLoadSkew, finding.SeverityWarning, "", "", ""),
				f("s", KindSecondaryIndexHighCard, finding.SeverityWarning, "t", "", "")},
			wantGroups: [][]string{{"o"}, {"x"}, {"l"}, {"s"}}, wantIDs: []string{"o", "x", "l", "s"}},
		{name: "a hot key that is the large key: one problem, both remedies",
			in:         []finding.Finding{f("o", KindOversizedPartition, finding.SeverityCritical, "t", "k1", "split it"), f("h", KindHotPartition, finding.SeverityWarning, "t", "k1", "spread key k1 over 4 suffix buckets")},
			wantGroups: [][]string{{"o", "h"}}, wantIDs: []string{"o"}, advice: []string{"split it; also, for hot_partition: spread key k1"}},
		{name: "two hot keys: two problems; the keyless size finding can be neither's",
			in:         []finding.Finding{f("h1", KindHotPartition, finding.SeverityWarning, "t", "k1", ""), f("h2", KindHotPartition, finding.SeverityWarning, "t", "k2", ""), big},
			wantGroups: [][]string{{"h1"}, {"h2"}, {"o"}}, wantIDs: []string{"h1", "h2", "o"}},
		{name: "one named key: the keyless findings of its table join it",
			in:         []finding.Finding{f("h", KindHotPartition, finding.SeverityCritical, "t", "k1", "spread"), big, f("tb", KindTombstoneHeavy, finding.SeverityWarning, "t", "", "lower gc_grace")},
			wantGroups: [][]string{{"h", "o", "tb"}}, wantIDs: []string{"o"}, advice: []string{"add a day bucket", "spread", "also, for tombstone_heavy: lower gc_grace"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ps := groupProblems(c.in)
			var groups [][]string
			var ids []string
			for _, p := range ps {
				var g []string
				for _, e := range p.Evidence {
					g = append(g, e.ID)
				}
				groups, ids = append(groups, g), append(ids, p.ID)
				if p.Severity != p.Evidence[0].Severity || p.Kinds[0] != p.Kind {
					t.Errorf("problem %s: its face is not its most severe member: %+v", p.ID, p)
				}
			}
			if !reflect.DeepEqual(groups, c.wantGroups) || !reflect.DeepEqual(ids, c.wantIDs) {
				t.Fatalf("groups %v ids %v, want %v %v", groups, ids, c.wantGroups, c.wantIDs)
			}
			for _, want := range c.advice {
				if !strings.Contains(ps[0].Advice, want) {
					t.Errorf("advice %q lacks %q", ps[0].Advice, want)
				}
			}
			for _, bad := range c.notAdvice {
				if strings.Contains(ps[0].Advice, bad) {
					t.Errorf("advice %q has %q: two split advices", ps[0].Advice, bad)
				}
			}
		})
	}
}

// Every finding is in exactly one problem, the report's problems cover
// its findings, and a problem's findings share a table.
func TestProblemsCoverEveryFindingOnce(t *testing.T) {
	th := DefaultThresholds()
	grouped := 0
	for seed := int64(1); seed <= propertySeeds; seed++ {
		s, h := genSnapshot(newRand(seed))
		r := Analyze(s, h, th)
		seen := map[string]int{}
		for _, p := range r.Problems {
			if len(p.Evidence) > 1 {
				grouped++
			}
			for _, e := range p.Evidence {
				seen[e.ID]++
				if e.Keyspace != p.Keyspace || e.Table != p.Table {
					t.Errorf("seed %d: problem %s on %s.%s holds %s on %s.%s", seed, p.ID, p.Keyspace, p.Table, e.Kind, e.Keyspace, e.Table)
				}
			}
		}
		for _, f := range r.Findings {
			if seen[f.ID] != 1 {
				t.Errorf("seed %d: finding %s %s is in %d problems", seed, f.Kind, f.ID, seen[f.ID])
			}
		}
	}
	if grouped == 0 {
		t.Fatal("no seed gave a problem of two kinds: the property tests nothing")
	}
}

func newRand(seed int64) *rand.Rand { return rand.New(rand.NewSource(seed)) }
