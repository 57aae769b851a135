package web

import (
	"net/http"
	"testing"
)

func TestNegotiateEncoding(t *testing.T) {
	tests := []struct {
		header []string
		want   string
	}{
		{header: nil, want: "identity"},
		{header: []string{"gzip"}, want: "gzip"},
		{header: []string{"gzip, deflate, br"}, want: "gzip"},
		{header: []string{"deflate, gzip;q=1.0, *;q=0.5"}, want: "gzip"},
		{header: []string{"gzip, identity"}, want: "identity"}, // a tie goes to the earlier offer, as in promhttp
		{header: []string{"identity;q=0.5, gzip;q=0.8"}, want: "gzip"},
		{header: []string{"zstd"}, want: "identity"},
		{header: []string{"*"}, want: "identity"},
		{header: []string{"identity;q=0, gzip;q=0"}, want: ""},
		{header: []string{"gzip;q=x"}, want: "identity"},
		{header: []string{"br", "gzip"}, want: "gzip"},
	}
	for _, tc := range tests {
		r := &http.Request{Header: http.Header{}}
		for _, h := range tc.header {
			r.Header.Add("Accept-Encoding", h)
		}
		if got := negotiateEncoding(r); got != tc.want {
			t.Errorf("Accept-Encoding %q: %q, want %q", tc.header, got, tc.want)
		}
	}
}
