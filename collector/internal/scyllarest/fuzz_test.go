package scyllarest

// Fuzz targets for the ScyllaDB REST parsers: a malformed answer must be an
// error, never a panic or an impossible value. Seeds are the fixtures plus
// the committed corpora in testdata/fuzz/<FuzzName>/; `go test` runs them,
// `go test -fuzz=FuzzParseTopPartitions ./collector/internal/scyllarest/` explores.

import (
	"math"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cqlname"
	"github.com/partmon/partmon/model"
)

func addScyllaSeeds(f *testing.F, fixtures ...string) {
	for _, name := range fixtures {
		f.Add(readScyllaFixture(f, name))
	}
}

func FuzzParseTopPartitions(f *testing.F) {
	addScyllaSeeds(f, "toppartitions.json", "toppartitions_partial.json", "toppartitions_empty.json",
		"toppartitions_extra_fields.json", "toppartitions_negative.json", "error_500.json")
	const listSize = 3
	f.Fuzz(func(t *testing.T, body []byte) {
		hot, err := parseTopPartitions(body, time.Second, listSize)
		if err != nil {
			return
		}
		perTable := map[string]int{}
		for _, h := range hot {
			if h.Op != "read" && h.Op != "write" || h.Source != "rest" {
				t.Fatalf("op %q source %q", h.Op, h.Source)
			}
			if h.Count < 0 || h.Error < 0 || (h.Total != 0 && h.Total < h.Count) {
				t.Fatalf("impossible numbers %+v", h)
			}
			if cqlname.Check("keyspace", h.Keyspace) != nil || cqlname.Check("table", h.Table) != nil {
				t.Fatalf("bad table in %+v", h)
			}
			id := h.Op + " " + model.TableKey(h.Keyspace, h.Table)
			if perTable[id]++; perTable[id] > listSize {
				t.Fatalf("more than %d entries for %s", listSize, id)
			}
		}
	})
}

func FuzzParseHistogram(f *testing.F) {
	addScyllaSeeds(f, "size_histogram.json", "size_histogram_empty.json", "error_400.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		h, err := parseHistogram(body)
		if err != nil {
			return
		}
		if len(h.Buckets) != len(h.Offsets)+1 {
			t.Fatalf("%d buckets for %d offsets", len(h.Buckets), len(h.Offsets))
		}
		if h.Count() < 0 {
			t.Fatalf("negative count %d", h.Count())
		}
		if !h.Overflowed() && h.Mean() > h.Max() {
			t.Fatalf("mean %d above max %d", h.Mean(), h.Max())
		}
		prev := int64(math.MinInt64)
		for _, p := range []float64{0, 0.25, 0.5, 0.75, 0.95, 0.99, 1} {
			v := h.Percentile(p)
			if v < prev {
				t.Fatalf("percentile %v = %d below the previous %d", p, v, prev)
			}
			prev = v
		}
	})
}

func FuzzParseLong(f *testing.F) {
	addScyllaSeeds(f, "max_row_size.json", "error_500.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		v, err := parseLong(body)
		if err == nil && v < 0 {
			t.Fatalf("negative size %d accepted", v)
		}
	})
}

func FuzzParseOwnership(f *testing.F) {
	addScyllaSeeds(f, "ownership.json", "error_400.json")
	f.Fuzz(func(t *testing.T, body []byte) {
		own, err := parseOwnership(body)
		if err != nil {
			return
		}
		for node, v := range own {
			if node == "" || math.IsNaN(v) || v < 0 || v > 1+1e-6 {
				t.Fatalf("ownership %q = %v accepted", node, v)
			}
		}
	})
}
