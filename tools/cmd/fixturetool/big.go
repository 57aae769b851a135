package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/gocql/gocql"
)

const (
	bigKey        = "big"
	bigRowBytes   = 1024
	bigBatchRows  = 64
	bigWorkers    = 4
	smallBigParts = 1000 // enough partitions that pm_big is not a low-cardinality table
)

// writeBig writes one partition of largeMiB MiB of 1 KiB random rows (random:
// compression cannot shrink it) at consistency ALL, so every replica holds all of it.
func writeBig(ctx context.Context, s *gocql.Session, largeMiB int) (rows int64, err error) {
	rows = int64(largeMiB) * 1024 * 1024 / bigRowBytes
	batches := int((rows + bigBatchRows - 1) / bigBatchRows)
	const stmt = "INSERT INTO pm_big.events (id, seq, payload) VALUES (?, ?, ?)"
	start := time.Now()
	err = runJobs(ctx, batches, bigWorkers, func(b int) error {
		rng := rand.New(rand.NewPCG(uint64(b), 42))
		var batch [][]any
		for seq := int64(b) * bigBatchRows; seq < min(rows, int64(b+1)*bigBatchRows); seq++ {
			payload := make([]byte, bigRowBytes)
			for i := 0; i < len(payload); i += 8 {
				v := rng.Uint64()
				for j := 0; j < 8; j++ {
					payload[i+j] = byte(v >> (8 * j))
				}
			}
			batch = append(batch, []any{bigKey, int(seq), payload})
		}
		return samePartitionBatch(s, gocql.All, stmt, batch)
	})
	if err != nil {
		return 0, fmt.Errorf("writing the large partition: %w", err)
	}
	secs := time.Since(start).Seconds()
	mib := float64(rows*bigRowBytes) / (1 << 20)
	logf("pm_big.events: partition %q: %d rows, %.0f MiB payload in %.1f s = %.1f MiB/s (x3 replicas, CL ALL, %d workers, batches of %d)",
		bigKey, rows, mib, secs, mib/secs, bigWorkers, bigBatchRows)

	// Small partitions next to it: 10 rows of 100 bytes each.
	err = runJobs(ctx, smallBigParts, 8, func(p int) error {
		var batch [][]any
		for seq := 0; seq < 10; seq++ {
			batch = append(batch, []any{fmt.Sprintf("small-%04d", p), seq, make([]byte, 100)})
		}
		return samePartitionBatch(s, gocql.LocalQuorum, stmt, batch)
	})
	if err != nil {
		return 0, fmt.Errorf("writing small partitions of pm_big.events: %w", err)
	}
	return rows, nil
}
