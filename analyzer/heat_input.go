package analyzer

import (
	"github.com/partmon/partmon/analyzer/figures"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/model"
)

// The heatmaps' types are package figures'; the report names them here.
type (
	HeatMaps = figures.HeatMaps
	HeatMap  = figures.HeatMap
	HeatSpan = figures.HeatSpan
	HeatNode = figures.HeatNode
	HeatCell = figures.HeatCell
	HeatKey  = figures.HeatKey
)

// HeatTableMaps bounds the tables whose heatmap has cells (figures.HeatTableMaps).
const HeatTableMaps = figures.HeatTableMaps

// heatInput is what the heatmaps take from the rules: the findings counted
// per table, and per table the keys sampled hot this cycle, then the keys
// hot_partition findings name, each with its share.
func (a viewFigures) heatInput(findings []finding.Finding) figures.Heat {
	in := figures.Heat{Findings: map[string]int{}, Keys: map[string][]figures.SharedKey{},
		TrafficFloor: a.th.TrafficFloorOpsPerSecond}
	for _, f := range findings {
		in.Findings[model.TableKey(f.Keyspace, f.Table)]++
	}
	for key, hot := range a.hot {
		for _, hk := range hot {
			in.Keys[key] = append(in.Keys[key], figures.SharedKey{Key: hk.key, Share: hk.share})
		}
	}
	for _, f := range findings {
		if f.Kind != KindHotPartition {
			continue
		}
		share := 0.0
		if f.Figures != nil {
			share = f.Figures.Share
		}
		key := model.TableKey(f.Keyspace, f.Table)
		in.Keys[key] = append(in.Keys[key], figures.SharedKey{Key: f.PartitionKey, Share: share})
	}
	return in
}
