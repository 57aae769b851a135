package collector

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/tools/testcluster"
	"github.com/robfig/cron/v3"
)

// The sources a default config leaves off are exactly those whose Facts
// name a config key they need (OffUnless): every other source runs and
// reports a state, so a check that waits for every source waits for these
// too, and the docs' sources table says why they are off.
func TestSourcesOffUnlessConfigured(t *testing.T) {
	var declared []string
	for _, d := range Declarations() {
		if d.OffUnless != "" {
			declared = append(declared, d.Name)
		}
	}
	if got := SourcesOffUnlessConfigured(); !slices.Equal(got, declared) {
		t.Errorf("off in a default config: %v; declared off unless configured: %v", got, declared)
	}
	if len(declared) == 0 {
		t.Error("no source is declared off unless configured: the nodetool and data_disk sources are")
	}
	// Configured, each runs.
	cfg := Config{DataDisk: DataDiskConfig{Directories: []string{"/var/lib/cassandra/data"}},
		NodetoolSampler: NodetoolSamplerConfig{Command: []string{"nodetool", "-h", "{address}"}}}
	for _, r := range registry(cfg, nil) {
		if !r.enabled {
			t.Errorf("%s is off with %s set", r.src.Name(), r.facts.OffUnless)
		}
	}
}

// Every declaration is complete: what it reads, a gate that lets it run
// somewhere, a schedule robfig/cron reads, grants on keyspaces partmon
// knows, and an OffUnless that is a collector key.
func TestDeclarationsComplete(t *testing.T) {
	known := []string{ksSystem, ksSystemSchema, ksSystemViews, ksSystemVirtualSchema}
	for _, d := range Declarations() {
		if d.Reads == "" || d.DocReads() == "" {
			t.Errorf("%s declares nothing it reads", d.Name)
		}
		if d.Gate.Cassandra == "" && !d.Gate.ScyllaDB {
			t.Errorf("%s: its gate lets it run nowhere", d.Name)
		}
		if d.Gate.On() == "" {
			t.Errorf("%s: its gate says nothing for the docs", d.Name)
		}
		if _, err := cron.ParseStandard(d.Schedule); err != nil {
			t.Errorf("%s: schedule %q: %v", d.Name, d.Schedule, err)
		}
		for _, g := range d.Grants {
			if !slices.Contains(known, g) {
				t.Errorf("%s: grant on %q, no keyspace partmon reads", d.Name, g)
			}
		}
		if d.OffUnless != "" && !strings.HasPrefix(d.OffUnless, "collector.") {
			t.Errorf("%s: off unless %q, no collector key", d.Name, d.OffUnless)
		}
	}
}

// The role the real-cluster tests create (testcluster.CreateReadOnlyRole,
// used by reliability's auth test and make test's auth runs) has exactly
// the grants the sources declare: a source that needs one more keyspace
// fails there until its grant is declared.
func TestGrantsAreTheTestRolesGrants(t *testing.T) {
	if got := Grants(); !slices.Equal(got, testcluster.ReadOnlyKeyspaces) {
		t.Errorf("declared grants %v, the test role's %v (tools/testcluster/roles.go)", got, testcluster.ReadOnlyKeyspaces)
	}
}

// A source declares its own timeout, or runs under defaultTimeout.
func TestRegisterReadsTheFacts(t *testing.T) {
	for _, r := range registry(Config{}, nil) {
		want := r.facts.Timeout
		if want == 0 {
			want = defaultTimeout
		}
		if r.timeout != want || r.schedule != r.facts.Schedule || r.nodetool != r.facts.Nodetool ||
			r.rates != r.facts.Rates || r.sampler != r.facts.Sampler {
			t.Errorf("%s: registration %+v does not carry its facts %+v", r.src.Name(), r, r.facts)
		}
	}
	if r := register(scyllaTopPartitionsSource{window: time.Minute}); r.timeout != time.Minute+30*time.Second || r.window != time.Minute {
		t.Errorf("scylla_top_partitions with a 1m window: timeout %s, window %s", r.timeout, r.window)
	}
}
