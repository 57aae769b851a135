package testcluster

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Truth is what deploy/local/fixtures planted, read back from the real
// cluster when it was written. Tests compare findings with it and never copy
// its numbers into their code.
type Truth struct {
	Generated time.Time `json:"generated"`
	Hosts     []string  `json:"hosts"`
	Problems  []Problem `json:"problems"`
	// CleanKeyspaces hold only well-designed tables: no finding may name them.
	CleanKeyspaces []string `json:"clean_keyspaces"`
}

// Problem is one planted problem. Kind uses the analyzer's vocabulary
// (analyzer.KindOversizedPartition ...). Nodes are the replicas as the real
// `nodetool getendpoints` (or `nodetool status`) reported them.
type Problem struct {
	Kind     string   `json:"kind"`
	Keyspace string   `json:"keyspace"`
	Table    string   `json:"table,omitempty"`
	Key      string   `json:"key,omitempty"`
	Nodes    []string `json:"nodes"`
	// ExpectedSizeBytes is the payload written into the partition: a lower
	// bound of its serialized size.
	ExpectedSizeBytes int64 `json:"expected_size_bytes,omitempty"`
	// ExpectedShare is the measured share of the table's operations (hot key),
	// of the table's local operations on the named nodes (hot range), or the
	// named nodes' effective ownership (ownership skew).
	ExpectedShare      float64 `json:"expected_share,omitempty"`
	ExpectedRows       int64   `json:"expected_rows,omitempty"`
	ExpectedTombstones int64   `json:"expected_tombstones,omitempty"`
	ExpectedPartitions int64   `json:"expected_partitions,omitempty"`
	Note               string  `json:"note,omitempty"`
}

// TruthFile is where `fixtures load` writes the truth.
func TruthFile() string { return filepath.Join(Dir(), "truth.json") }

// LoadTruth reads TruthFile().
func LoadTruth() (*Truth, error) {
	data, err := os.ReadFile(TruthFile())
	if err != nil {
		return nil, fmt.Errorf("reading fixture truth (run deploy/local/fixtures load): %w", err)
	}
	var t Truth
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", TruthFile(), err)
	}
	return &t, nil
}

// Find returns the planted problems of one kind.
func (t *Truth) Find(kind string) []Problem {
	var out []Problem
	for _, p := range t.Problems {
		if p.Kind == kind {
			out = append(out, p)
		}
	}
	return out
}
