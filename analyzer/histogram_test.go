package analyzer

import "testing"

// The bounds docs/sources.md quotes from Cassandra's EstimatedHistogram.
func TestMiBBucketFloor(t *testing.T) {
	for _, c := range []struct{ mib, floor float64 }{
		{1, 1}, {2, 943_128}, {50, 43_388_629}, {103, 89_970_661}, {124, 107_964_793}, {0, 0},
	} {
		if got := mibBucketFloor(c.mib * mib); got != c.floor {
			t.Errorf("mibBucketFloor(%g MiB) = %g, want %g", c.mib, got, c.floor)
		}
	}
	for _, b := range []float64{5_722, 943_127, 52_066_354, 129_557_750} {
		if i := indexOf(bucketBounds, b); i < 0 {
			t.Errorf("%g is not one of the bucket bounds", b)
		}
	}
}

func indexOf(xs []float64, v float64) int {
	for i, x := range xs {
		if x == v {
			return i
		}
	}
	return -1
}
