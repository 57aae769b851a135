// Package set holds the sorted-string-set helpers the analyzer's packages share.
package set

import "sort"

// AddSorted inserts s into a sorted set.
func AddSorted(set []string, s string) []string {
	i := sort.SearchStrings(set, s)
	if i < len(set) && set[i] == s {
		return set
	}
	set = append(set, "")
	copy(set[i+1:], set[i:])
	set[i] = s
	return set
}

// Keys is m's keys in order.
func Keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
