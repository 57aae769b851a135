package analyzer

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/partmon/partmon/internal/format"
	"github.com/partmon/partmon/model"
)

// timeBucket is a period a time-series partition can be split by.
type timeBucket struct {
	name    string
	seconds float64
	width   string // as the key advisor writes it: bucket(col, width)
}

// timeBuckets from the coarsest: the advice picks the coarsest that fits,
// because every bucket is one more partition for a reader to visit.
var timeBuckets = []timeBucket{
	{"year", 365 * 86400, "365d"},
	{"month", 30 * 86400, "30d"},
	{"week", 7 * 86400, "7d"},
	{"day", 86400, "1d"},
	{"hour", 3600, "1h"},
	{"minute", 60, "1m"},
}

// chooseTimeBucket is the coarsest bucket whose partition, growing at
// bytesPerSecond, stays at or under target; ok is false when even a minute
// is too much (or nothing grows).
func chooseTimeBucket(bytesPerSecond, target float64) (b timeBucket, size float64, ok bool) {
	if !(bytesPerSecond > 0) {
		return timeBucket{}, 0, false
	}
	for _, b := range timeBuckets {
		if s := bytesPerSecond * b.seconds; s <= target {
			return b, s, true
		}
	}
	return timeBucket{}, 0, false
}

// rowsBucketAdvice sizes a time bucket by rows for a key that gains
// rowsPerSecond: the coarsest bucket that holds at most half the wide
// partition warning, the headroom bucketTarget keeps for bytes.
func (a bucketAdvice) rowsBucketAdvice(t *tableView, col string, rowsPerSecond float64) (advice, key string) {
	keyCols := partitionKeyWords(t.schema)
	target := float64(a.th.PartitionRowsWarning) / 2
	for _, b := range timeBuckets {
		if rows := rowsPerSecond * b.seconds; rows <= target {
			article := "a"
			if b.name == "hour" {
				article = "an"
			}
			return fmt.Sprintf("add %s %s bucket of %s to %s: at %s one bucket then holds ~%s rows, under half the %s-row wide partition warning",
				article, b.name, col, keyCols, writesPerSecond(rowsPerSecond), format.Count(rows), format.Count(float64(a.th.PartitionRowsWarning))), bucketedKey(t, col, b)
		}
	}
	n := splitCount(rowsPerSecond*60, target)
	return fmt.Sprintf("even a minute bucket of %s would hold %s rows at %s: add a minute bucket and %d shards to %s",
		col, format.Count(rowsPerSecond*60), writesPerSecond(rowsPerSecond), n, keyCols), ""
}

// bucketedKey is the table's primary key with a bucket of col of b's width
// added to its partition key, as `partmon advise --key` reads it, so the
// advice can be measured on the table's own rows before anyone migrates;
// "" when a column's name is not one the advisor's key syntax can write.
func bucketedKey(t *tableView, col string, b timeBucket) string {
	if t.schema == nil || !plainName(col) {
		return ""
	}
	var part, clust []string
	for _, c := range partitionKey(t.schema) {
		part = append(part, c.Name)
	}
	for _, c := range clusteringColumns(t.schema) {
		clust = append(clust, c.Name)
	}
	for _, n := range append(slices.Clone(part), clust...) {
		if !plainName(n) {
			return ""
		}
	}
	part = append(part, "bucket("+col+", "+b.width+")")
	return "(" + strings.Join(append([]string{"(" + strings.Join(part, ", ") + ")"}, clust...), ", ") + ")"
}

// plainName is a column name CQL writes without quotes: lower-case letters,
// digits and underscores, not starting with a digit.
func plainName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')) {
			return false
		}
	}
	return true
}

// writesPerSecond writes a sampled write rate: "0.73 writes/s".
func writesPerSecond(r float64) string {
	if r >= 10 {
		return format.Count(r) + " writes/s"
	}
	return strconv.FormatFloat(r, 'g', 2, 64) + " writes/s"
}

// bucketTarget is the partition size the advice aims for: half the warning
// size, headroom for growth that varies.
func (a bucketAdvice) bucketTarget() float64 { return float64(a.th.PartitionWarningBytes) / 2 }

// splitCount is how many parts bring size under target (at least 2).
func splitCount(size, target float64) int {
	if !(target > 0) {
		return 2
	}
	return max(2, int(math.Ceil(size/target)))
}

// timeClustering returns the table's first time-typed clustering column.
func timeClustering(t *tableView) (string, bool) {
	if t.schema == nil {
		return "", false
	}
	for _, c := range clusteringColumns(t.schema) {
		if isTimeType(c.Type) {
			return c.Name, true
		}
	}
	return "", false
}

// hasBucket reports whether the partition key already holds a bucket or shard.
func hasBucket(t *tableView) bool {
	if t.schema == nil {
		return false
	}
	for _, c := range partitionKey(t.schema) {
		if isBucketColumn(c) {
			return true
		}
	}
	return false
}

// growthRate is how fast the largest partition fills, bytes per second:
// measured by the history fit, else implied by the TTL (a partition that
// keeps its TTL's worth of data grew by size ÷ TTL); how says which.
func growthRate(t *tableView, size float64) (rate float64, how string) {
	if t.growth.ok {
		return t.growth.slope, fmt.Sprintf("measured growth %s/day over %s", format.Bytes(t.growth.slope*86400), format.Seconds(t.growth.window))
	}
	if t.schema != nil && t.schema.DefaultTTLSeconds > 0 && size > 0 {
		ttl := float64(t.schema.DefaultTTLSeconds)
		return size / ttl, fmt.Sprintf("assuming the partition holds its %s TTL of data", format.Seconds(ttl))
	}
	return 0, ""
}

// partitionKeyWords names a table's partition key columns in advice.
func partitionKeyWords(s *model.Table) string {
	var names []string
	for _, c := range partitionKey(s) {
		names = append(names, c.Name)
	}
	if len(names) == 0 {
		return "the partition key"
	}
	return "the partition key (" + strings.Join(names, ", ") + ")"
}

// splitAdvice says how to bring a partition of size bytes under the target:
// a time bucket sized from the growth rate for time series, else a number
// of shards.
// key is the bucketed primary key it proposes, when it proposes one of a
// width (bucketedKey), else "".
func (a bucketAdvice) splitAdvice(t *tableView, size float64) (advice, key string) {
	target := a.bucketTarget()
	keyCols := "the partition key"
	if t.schema != nil {
		keyCols = partitionKeyWords(t.schema)
	}
	if col, ok := timeClustering(t); ok && !hasBucket(t) {
		rate, how := growthRate(t, size)
		if b, per, ok := chooseTimeBucket(rate, target); ok {
			if per < size {
				return fmt.Sprintf("add a %s bucket of %s to %s: largest partition %s → ~%s (%s)",
					b.name, col, keyCols, format.Bytes(size), format.Bytes(per), how), bucketedKey(t, col, b)
			}
			return fmt.Sprintf("add a %s bucket of %s to %s: each bucket then holds ~%s instead of growing without bound (largest partition now %s; %s)",
				b.name, col, keyCols, format.Bytes(per), format.Bytes(size), how), bucketedKey(t, col, b)
		}
		if rate > 0 {
			n := splitCount(rate*60, target)
			return fmt.Sprintf("even a minute bucket of %s would hold %s (%s): add a minute bucket and %d shards to %s",
				col, format.Bytes(rate*60), how, n, keyCols), ""
		}
		n := splitCount(size, target)
		return fmt.Sprintf("add a time bucket of %s to %s, sized so one bucket holds under %s (the largest partition, %s, needs about %d buckets over its time span; growth is not measured yet)",
			col, keyCols, format.Bytes(target), format.Bytes(size), n), ""
	}
	n := splitCount(size, target)
	return fmt.Sprintf("add a shard column (0..%d, e.g. a hash of a clustering value mod %d) to %s: %s → ~%s per partition; reads of the whole key then query %d partitions",
		n-1, n, keyCols, format.Bytes(size), format.Bytes(size/float64(n)), n), ""
}

// bucketAdvice is the advice on splitting a partition that grows without bound.
type bucketAdvice struct{ *analysis }
