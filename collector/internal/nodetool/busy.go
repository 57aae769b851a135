package nodetool

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrBusy says the node's sampler could not serve partmon's window: another
// client was sampling (Cassandra samples a table once at a time:
// FrequencySampler.beginSampling throws "Sampling already in progress"), or
// the JMX call did not answer in time. It says nothing about the node's
// data, which the CQL sources read: the collector reports it as a busy
// sampler on that source, not as a failed one.
var ErrBusy = errors.New("sampler busy")

// busyMarks are what nodetool prints when the sampler, not the node, is the
// obstacle: Cassandra's own message for a sampling already running, and the
// JMX client's read timeout.
var busyMarks = []string{"Sampling already in progress", "java.net.SocketTimeoutException"}

// busyOr wraps err in ErrBusy when a failed run's output (stderr, then the
// start of stdout) carries one of busyMarks. Only the fact is added, not the
// output.
func busyOr(err error, outputs ...string) error {
	for _, out := range outputs {
		for _, m := range busyMarks {
			if strings.Contains(out, m) {
				return fmt.Errorf("%w: %w", ErrBusy, err)
			}
		}
	}
	return err
}

// busyRetries bounds the tries of one pass after the first that found the
// sampler busy.
const busyRetries = 3

// sampleWhileBusy runs try and, while it fails with ErrBusy and ctx leaves
// room for a wait of pause and another run of need, waits and tries again.
// A run that used up ctx's deadline (the JMX call never answered) is busy
// too. The last error is returned as it came, wrapped in ErrBusy when busy.
func sampleWhileBusy(ctx context.Context, pause, need time.Duration, try func() (string, error)) (string, error) {
	for i := 0; ; i++ {
		out, err := try()
		if err == nil {
			return out, nil
		}
		if !errors.Is(err, ErrBusy) && errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
			return "", fmt.Errorf("%w: the JMX call did not answer within the source's timeout: %w", ErrBusy, err)
		}
		if !errors.Is(err, ErrBusy) || i >= busyRetries {
			return "", err
		}
		if d, ok := ctx.Deadline(); ok && time.Until(d) < pause+need {
			return "", err
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", err
		case <-t.C:
		}
	}
}
