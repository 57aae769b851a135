package collector

import (
	"slices"
	"testing"
)

// The sources a default config leaves off are those that need something
// only the user can name; every other source runs and reports a state, so
// a check that waits for every source waits for these too.
func TestSourcesOffUnlessConfigured(t *testing.T) {
	want := []string{"data_disk", "nodetool_histograms", "nodetool_sampler", "nodetool_tablestats"}
	got := SourcesOffUnlessConfigured()
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("off unless configured: %v, want %v (a new one needs its reason in the docs' sources table)", got, want)
	}
	on := map[string]bool{}
	for _, name := range SourceNames() {
		on[name] = true
	}
	for _, name := range got {
		if !on[name] {
			t.Errorf("%s is off unless configured but not a source name", name)
		}
	}
}
