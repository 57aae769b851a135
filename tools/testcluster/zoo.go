package testcluster

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// ZooKeyspace holds the schema zoo: every CQL schema feature of the
// cluster's version that `fixtures zoo` could plant.
const ZooKeyspace = "pm_zoo"

// ZooTruth is what `fixtures zoo` planted, read back from the cluster.
type ZooTruth struct {
	Version string `json:"version"`
	// Objects names each zoo object (keyspace.table, keyspace.view,
	// keyspace.index, type or function) with the feature it exercises.
	Objects map[string]string `json:"objects"`
	// Views maps each materialized view (keyspace.view) to its base table.
	Views map[string]string `json:"views"`
	// Left names the features this cluster could not hold, with why.
	Left map[string]string `json:"left,omitempty"`
	// Problems are the zoo's planted problems; Silent the tables (good
	// designs) no finding may name.
	Problems []Problem `json:"problems"`
	Silent   []string  `json:"silent"`
}

// ZooTruthFile is where `fixtures zoo` writes the zoo's truth.
func ZooTruthFile() string { return filepath.Join(Dir(), "zoo-truth.json") }

// LoadZooTruth reads the truth `fixtures zoo` wrote.
func LoadZooTruth() (*ZooTruth, error) {
	data, err := os.ReadFile(ZooTruthFile())
	if err != nil {
		return nil, fmt.Errorf("reading the zoo's truth (run deploy/local/fixtures zoo): %w", err)
	}
	var t ZooTruth
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("parsing %s: %w", ZooTruthFile(), err)
	}
	return &t, nil
}
