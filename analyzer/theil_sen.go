package analyzer

import (
	"math"
	"sort"
)

// theilSen fits y = intercept + slope·x robustly: the slope is the median
// of the slopes of all pairs of points, the intercept the median of
// y − slope·x. Up to ~29 % of the points can be outliers without moving the
// fit, and a step function fitted over its steps gives the steps' trend,
// while one late jump (a compaction merging sstables) is ignored. ok is
// false with fewer than two distinct x. scratch, when given, is reused for
// the pair slopes.
func theilSen(xs, ys []float64, scratch *[]float64) (slope, intercept float64, ok bool) {
	n := len(xs)
	if n != len(ys) || n < 2 {
		return 0, 0, false
	}
	var slopes []float64
	if scratch != nil {
		slopes = (*scratch)[:0]
		defer func() { *scratch = slopes }()
	}
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			if dx := xs[j] - xs[i]; dx != 0 {
				slopes = append(slopes, (ys[j]-ys[i])/dx)
			}
		}
	}
	if len(slopes) == 0 {
		return 0, 0, false
	}
	slope = median(slopes)
	rest := slopes[:0] // the slopes are no longer needed
	for i := range xs {
		rest = append(rest, ys[i]-slope*xs[i])
	}
	return slope, median(rest), true
}

// median reorders v in place (quickselect: the fit runs for every table
// every cycle, and sorting thousands of pair slopes dominated it).
func median(v []float64) float64 {
	n := len(v)
	if n == 0 {
		return math.NaN()
	}
	m := n / 2
	hi := selectKth(v, m)
	if n%2 == 1 {
		return hi
	}
	lo := v[0]
	for _, x := range v[1:m] {
		lo = max(lo, x)
	}
	return (lo + hi) / 2
}

// selectKth reorders v so that v[k] is the k-th smallest, everything before
// it no larger and everything after it no smaller, and returns v[k].
func selectKth(v []float64, k int) float64 {
	lo, hi := 0, len(v)-1
	for hi > lo {
		if hi-lo < 16 {
			sort.Float64s(v[lo : hi+1])
			break
		}
		// Median of three as the pivot, then Hoare partition.
		mid := lo + (hi-lo)/2
		if v[mid] < v[lo] {
			v[mid], v[lo] = v[lo], v[mid]
		}
		if v[hi] < v[lo] {
			v[hi], v[lo] = v[lo], v[hi]
		}
		if v[hi] < v[mid] {
			v[hi], v[mid] = v[mid], v[hi]
		}
		pivot := v[mid]
		i, j := lo, hi
		for i <= j {
			for v[i] < pivot {
				i++
			}
			for v[j] > pivot {
				j--
			}
			if i <= j {
				v[i], v[j] = v[j], v[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return v[k]
		}
	}
	return v[k]
}
