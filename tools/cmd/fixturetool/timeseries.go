package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gocql/gocql"
)

const (
	busySensor     = "sensor-0000"
	busySensorRows = 20000
	quietSensors   = 1000 // many sensors: the table's problem is the missing bucket, not cardinality
	quietRows      = 5
)

var tsEpoch = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// writeTimeSeries keys readings by sensor only: the busiest sensor's partition
// grows forever (no time bucket in the partition key).
func writeTimeSeries(ctx context.Context, s *gocql.Session) error {
	if err := appendReadings(ctx, s, busySensor, tsEpoch, busySensorRows); err != nil {
		return err
	}
	err := runJobs(ctx, quietSensors, 8, func(i int) error {
		return appendReadingsBatch(s, fmt.Sprintf("sensor-%04d", i+1), tsEpoch, 0, quietRows)
	})
	if err != nil {
		return fmt.Errorf("writing pm_ts.readings: %w", err)
	}
	return nil
}

func appendReadings(ctx context.Context, s *gocql.Session, sensor string, from time.Time, rows int) error {
	err := runJobs(ctx, (rows+99)/100, 4, func(b int) error {
		return appendReadingsBatch(s, sensor, from, b*100, min(rows, (b+1)*100))
	})
	if err != nil {
		return fmt.Errorf("writing pm_ts.readings %s: %w", sensor, err)
	}
	return nil
}

// appendReadingsBatch writes readings lo..hi-1, one second apart from `from`.
func appendReadingsBatch(s *gocql.Session, sensor string, from time.Time, lo, hi int) error {
	const stmt = "INSERT INTO pm_ts.readings (sensor_id, ts, value) VALUES (?, ?, ?)"
	var batch [][]any
	for i := lo; i < hi; i++ {
		batch = append(batch, []any{sensor, from.Add(time.Duration(i) * time.Second), float64(i%1000) / 10})
	}
	return samePartitionBatch(s, gocql.LocalQuorum, stmt, batch)
}

// growCommand appends rows after the busiest sensor's newest reading, so its
// largest partition keeps growing between snapshots.
func growCommand(ctx context.Context, rows int) error {
	if rows <= 0 {
		return fmt.Errorf("need --rows > 0")
	}
	s, err := clusterSession()
	if err != nil {
		return err
	}
	defer s.Close()
	var last time.Time
	if err := s.Query("SELECT max(ts) FROM pm_ts.readings WHERE sensor_id = ?", busySensor).Scan(&last); err != nil {
		return fmt.Errorf("reading the newest reading of %s (run fixtures load first?): %w", busySensor, err)
	}
	start := time.Now()
	if err := appendReadings(ctx, s, busySensor, last.Add(time.Second), rows); err != nil {
		return err
	}
	if err := onEveryNode(ctx, "flush", "pm_ts", "readings"); err != nil {
		return err
	}
	st, err := loadState()
	if err != nil {
		return err
	}
	st.BusySensorRow += int64(rows)
	if err := saveState(st); err != nil {
		return err
	}
	logf("pm_ts.readings: appended %d rows to %s (now %d) and flushed in %.1f s", rows, busySensor, st.BusySensorRow, time.Since(start).Seconds())
	_, err = writeTruth(ctx, s)
	return err
}
