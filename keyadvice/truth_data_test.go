package keyadvice

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"go.yaml.in/yaml/v3"
)

// The truth is data: testdata/truth.yaml holds the planted tables, each
// key's expected verdict and the tolerances (written before the first run).
type truthFile struct {
	Tolerances struct {
		PartitionsSE   float64 `yaml:"partitions_se"`
		PartitionsRel  float64 `yaml:"partitions_rel"`
		RowsP50Factor  float64 `yaml:"rows_p50_factor"`
		RowsP99Factor  float64 `yaml:"rows_p99_factor"`
		RowsMaxFactor  float64 `yaml:"rows_max_factor"`
		BytesFactor    float64 `yaml:"bytes_factor"`
		BytesMaxFactor float64 `yaml:"bytes_max_factor"`
	} `yaml:"tolerances"`
	Tables []plantedTable `yaml:"tables"`
}

// plantedTable is one planted table and the keys judged on it; its rows
// are made by the generator of its name (truth_integration_test.go).
type plantedTable struct {
	Name    string     `yaml:"name"`
	Design  string     `yaml:"design"` // good: every key silent
	CI      bool       `yaml:"ci"`     // in the CI subset (PARTMON_TRUTH_CI=1)
	Problem string     `yaml:"problem"`
	Cols    []string   `yaml:"columns"` // name type, partition key first
	Key     string     `yaml:"key"`     // its PRIMARY KEY
	Keys    []truthKey `yaml:"keys"`    // the current key first
}

// truthKey is one key's expected verdict.
type truthKey struct {
	Key string `yaml:"key"`
	// Decided: its partitions must be known; Warned: the advisor must warn
	// about it (false: it must not).
	Decided bool `yaml:"decided"`
	Warned  bool `yaml:"warned"`
}

func loadTruth() truthFile {
	b, err := os.ReadFile("testdata/truth.yaml")
	if err != nil {
		panic(err)
	}
	var f truthFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		panic(fmt.Sprintf("testdata/truth.yaml: %v", err))
	}
	return f
}

// testdata/truth.yaml is whole: every tolerance set, every key parses,
// each table's current key first, at least one good design, every good
// design's keys expected silent, and a bad one's problem expected warned.
func TestTruthDataIsWhole(t *testing.T) {
	f := loadTruth()
	tl := f.Tolerances
	for name, v := range map[string]float64{"partitions_se": tl.PartitionsSE, "partitions_rel": tl.PartitionsRel, "rows_p50_factor": tl.RowsP50Factor,
		"rows_p99_factor": tl.RowsP99Factor, "rows_max_factor": tl.RowsMaxFactor, "bytes_factor": tl.BytesFactor, "bytes_max_factor": tl.BytesMaxFactor} {
		if v <= 0 {
			t.Errorf("tolerance %s unset", name)
		}
	}
	good, warned := 0, 0
	for _, pt := range f.Tables {
		if len(pt.Keys) == 0 || pt.Keys[0].Key != pt.Key {
			t.Errorf("%s: the first key is not its current key %s", pt.Name, pt.Key)
		}
		if pt.Design != "good" && pt.Design != "bad" {
			t.Errorf("%s: design %q, want good or bad", pt.Name, pt.Design)
		}
		for _, k := range pt.Keys {
			if _, err := ParseKey(k.Key); err != nil {
				t.Errorf("%s: %v", pt.Name, err)
			}
			if pt.Design == "good" && k.Warned {
				t.Errorf("%s: a good design's key %s expected warned", pt.Name, k.Key)
			}
			if k.Warned {
				warned++
			}
		}
		if pt.Design == "good" {
			good++
		}
	}
	if good == 0 || warned == 0 {
		t.Errorf("%d good designs and %d keys expected warned: the truth needs both", good, warned)
	}
	ciGood, ciBad := false, false
	for _, pt := range f.Tables {
		ciGood = ciGood || pt.CI && pt.Design == "good"
		ciBad = ciBad || pt.CI && pt.Design == "bad"
	}
	if !ciGood || !ciBad {
		t.Error("the CI subset needs a good design and a bad one")
	}
}
