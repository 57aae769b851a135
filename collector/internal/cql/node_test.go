package cql

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.uber.org/zap"
)

func noProbe(context.Context, Querier) (struct{}, error) { return struct{}{}, nil }

func TestBackoffGrowsAndResets(t *testing.T) {
	opts := Options{RetryBackoff: time.Second, MaxRetryBackoff: 10 * time.Second}
	n := NewNode("10.0.0.1", 9042, &opts, noProbe, zap.NewNop())
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	n.now = func() time.Time { return now }
	ctx := context.Background()
	for i, want := range []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 10 * time.Second, 10 * time.Second} {
		n.failed(ctx, errors.New("refused"))
		if got := n.retryAt.Sub(now); got != want {
			t.Errorf("failure %d: backoff %s, want %s", i+1, got, want)
		}
	}
	err := n.backoffErr()
	var b *BackoffError
	if !errors.Is(err, ErrBackoff) || !errors.As(err, &b) || b.Node != "10.0.0.1" || b.Failures != 6 || b.Wait != 10*time.Second || b.Last.Error() != "refused" {
		t.Errorf("got %#v", err)
	}
	if want := "backing off: node 10.0.0.1 failed 6 times in a row, next attempt in 10s; last error: refused"; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	if failures, last := n.Failure(); failures != 6 || last == nil || last.Error() != "refused" || n.Endpoint() != "10.0.0.1:9042" {
		t.Errorf("Failure() = %d, %v; Endpoint() = %s", failures, last, n.Endpoint())
	}
	if _, _, err := n.Querier(ctx); !errors.Is(err, ErrBackoff) {
		t.Errorf("Querier while backing off: want ErrBackoff, got %v", err)
	}
	n.succeeded()
	if err := n.backoffErr(); err != nil {
		t.Errorf("after a success: %v", err)
	}
	if failures, last := n.Failure(); failures != 0 || last != nil {
		t.Errorf("after a success: Failure() = %d, %v", failures, last)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	n.failed(cancelled, errors.New("context canceled"))
	if n.failures != 0 {
		t.Error("a run cancelled by partmon itself must not count against the node")
	}
}
