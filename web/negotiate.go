package web

import (
	"net/http"
	"strconv"
	"strings"
)

// offeredEncodings are the compressions /metrics offers, in promhttp's order.
var offeredEncodings = []string{"identity", "gzip"}

type acceptSpec struct {
	value string
	q     float64
}

// negotiateEncoding picks the compression of the response as promhttp does
// (its vendored golang/gddo NegotiateContentEncoding): the offer with the
// highest q the client accepts, the earlier offer on a tie, identity when the
// header says nothing, "" when everything offered is refused (q=0).
func negotiateEncoding(r *http.Request) string {
	best, bestQ := "identity", -1.0
	specs := acceptEncodings(r.Header)
	for _, offer := range offeredEncodings {
		for _, s := range specs {
			if s.q > bestQ && (s.value == "*" || s.value == offer) {
				best, bestQ = offer, s.q
			}
		}
	}
	if bestQ == 0 {
		return ""
	}
	return best
}

// acceptEncodings parses Accept-Encoding: "gzip, identity;q=0.5, *;q=0".
// An element it cannot read is left out.
func acceptEncodings(h http.Header) []acceptSpec {
	var specs []acceptSpec
	for _, line := range h.Values("Accept-Encoding") {
		for elem := range strings.SplitSeq(line, ",") {
			value, params, _ := strings.Cut(elem, ";")
			s := acceptSpec{value: strings.TrimSpace(value), q: 1}
			if s.value == "" {
				continue
			}
			if params = strings.TrimSpace(params); params != "" {
				qs, ok := strings.CutPrefix(params, "q=")
				q, err := strconv.ParseFloat(qs, 64)
				if !ok || err != nil || q < 0 || q > 1 {
					continue
				}
				s.q = q
			}
			specs = append(specs, s)
		}
	}
	return specs
}
