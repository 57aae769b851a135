package analyzer

import (
	"reflect"
	"strings"
	"testing"
)

// Every Kind* constant must be in the one list, once; the exporter, the
// alert pusher and the rule tests read Kinds() instead of parsing this source.
func TestKindsListEveryKindOnce(t *testing.T) {
	want := []string{
		KindOversizedPartition, KindWidePartition, KindHotPartition, KindHotTokenRange,
		KindTombstoneHeavy, KindOwnershipSkew, KindLoadSkew, KindLowCardinalityKey,
		KindUnbucketedTimeSeries, KindSecondaryIndexHighCard, KindPartitionGrowthForecast,
		KindStaleData, KindAscendingTimeOrder,
	}
	got := Kinds()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Kinds() = %q, want %q", got, want)
	}
	seen := map[string]bool{}
	for _, k := range got {
		if seen[k] || k == "" || strings.ToLower(k) != k {
			t.Fatalf("kind %q repeated, empty or not lower case", k)
		}
		seen[k] = true
	}
	pushed := KindsPushedWithoutKey()
	if want := []string{KindOversizedPartition, KindWidePartition, KindHotPartition, KindTombstoneHeavy}; !reflect.DeepEqual(pushed, want) {
		t.Fatalf("KindsPushedWithoutKey() = %q, want %q", pushed, want)
	}
}
