package statefile

import (
	"encoding/json"
	"fmt"

	"github.com/partmon/partmon/analyzer/history"
)

// CheckLimits refuses history limits whose parts that do not grow with the
// tables (the key history, and the heatmap's columns on a three-node
// cluster, the smallest replication factor 3 needs) would alone take more
// than half of what a state file may hold: the other half is the tables'
// size and traffic history. The bytes are those of JSON encoding a key
// series and a heat column entry of realistic figures.
func CheckLimits(l history.Limits) error {
	d := history.DefaultLimits()
	keysN, points := or(l.MaxKeys, d.MaxKeys), min(or(l.KeyPoints, d.KeyPoints), maxSizedPoints)
	cols, tables := or(l.HeatColumns, d.HeatColumns), or(l.HeatTables, d.HeatTables)
	keyBytes := keysN * seriesBytes(points)
	heatBytes := cols * tables * heatTableBytes(3)
	if total := keyBytes + heatBytes; total > maxStateBytes/2 {
		return fmt.Errorf("history limits take ~%d MiB of the state file before any table's history (max_keys %d × key_points %d: ~%d MiB; heat_columns %d × heat_tables %d on 3 nodes: ~%d MiB), more than half its %d MiB bound: lower max_keys, key_points, heat_columns or heat_tables",
			total>>20, keysN, points, keyBytes>>20, cols, tables, heatBytes>>20, maxStateBytes>>20)
	}
	return nil
}

// maxSizedPoints bounds the series seriesBytes builds to size one: past
// it the bytes grow in proportion (and analysis.history refuses more).
const maxSizedPoints = 1000

func or(v, def int) int {
	if v > 0 {
		return v
	}
	return def
}

// seriesBytes is one key series of n points as the file holds it.
func seriesBytes(n int) int {
	ks := history.KeySeries{First: 1765000000, Last: 1765100000, Replicas: []string{"10.1.0.101", "10.1.0.102", "10.1.0.103"}}
	for i := 0; i < n; i++ {
		ks.Points = append(ks.Points, history.KeyPoint{1765000000 + int64(i)*60, 104857600 + int64(i), 12345, 250000})
	}
	b, _ := json.Marshal(map[string]*history.KeySeries{"user.000001@example.org": &ks})
	return len(b) + len(`"shop.orders_by_customer":{},`)
}

// heatTableBytes is one table's entry in a heat column, for nodes nodes.
func heatTableBytes(nodes int) int {
	r := history.HeatRates{}
	for i := 0; i < nodes; i++ {
		r.Reads, r.Writes = append(r.Reads, 1234.567), append(r.Writes, 89.012)
	}
	b, _ := json.Marshal(map[string]history.HeatRates{"shop.orders_by_customer": r})
	return len(b)
}
