package analyzer

// Kinds of finding. These strings are the analyzer's vocabulary: the JSON
// output, the fixture truth file, metric labels and alert names use them.
const (
	KindOversizedPartition      = "oversized_partition"
	KindWidePartition           = "wide_partition"
	KindHotPartition            = "hot_partition"
	KindHotTokenRange           = "hot_token_range"
	KindTombstoneHeavy          = "tombstone_heavy"
	KindOwnershipSkew           = "ownership_skew"
	KindLoadSkew                = "load_skew"
	KindLowCardinalityKey       = "low_cardinality_key"
	KindUnbucketedTimeSeries    = "unbucketed_time_series"
	KindSecondaryIndexHighCard  = "secondary_index_high_cardinality"
	KindPartitionGrowthForecast = "partition_growth_forecast"
	KindStaleData               = "stale_data"
	// KindAscendingTimeOrder (info): a time clustering column in ascending
	// order, so newest-first reads are reversed reads.
	KindAscendingTimeOrder = "ascending_time_order"
)

// kind is one entry of the one list of kinds.
type kind struct {
	name string
	// pushedWithoutKey: partmon pushes these to Alertmanager even when they
	// name no partition key, because an operator acts on them per table; the
	// shipped Prometheus rules therefore leave them to the push (one alert
	// per problem). Findings naming a key are pushed whatever their kind.
	pushedWithoutKey bool
	// lowerIsWorse: the finding's value is bad below its threshold (a key
	// count, a time until a size is crossed), not above it.
	lowerIsWorse bool
}

var kinds = []kind{
	{name: KindOversizedPartition, pushedWithoutKey: true},
	{name: KindWidePartition, pushedWithoutKey: true},
	{name: KindHotPartition, pushedWithoutKey: true},
	{name: KindHotTokenRange},
	{name: KindTombstoneHeavy, pushedWithoutKey: true},
	{name: KindOwnershipSkew},
	{name: KindLoadSkew},
	{name: KindLowCardinalityKey, lowerIsWorse: true},
	{name: KindUnbucketedTimeSeries},
	{name: KindSecondaryIndexHighCard},
	{name: KindPartitionGrowthForecast, lowerIsWorse: true},
	{name: KindStaleData},
	{name: KindAscendingTimeOrder},
}

// Kinds lists every kind of finding the analyzer can report, in a fixed order.
func Kinds() []string {
	out := make([]string, len(kinds))
	for i, k := range kinds {
		out[i] = k.name
	}
	return out
}

// KindsPushedWithoutKey lists the kinds pushed to Alertmanager even when a
// finding names no partition key.
func KindsPushedWithoutKey() []string {
	var out []string
	for _, k := range kinds {
		if k.pushedWithoutKey {
			out = append(out, k.name)
		}
	}
	return out
}

// LowerIsWorse says whether a finding of kind is worse the lower its value
// (its severity thresholds are upper bounds).
func LowerIsWorse(kind string) bool {
	for _, k := range kinds {
		if k.name == kind {
			return k.lowerIsWorse
		}
	}
	return false
}
