package nodetool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A sampler busy with another client's window is ErrBusy, tried again
// within the pass; a run that then succeeds returns its keys.
func TestSampleRetriesBusySampler(t *testing.T) {
	busy, err := filepath.Abs("testdata/profileload_busy.stderr")
	if err != nil {
		t.Fatal(err)
	}
	good, err := filepath.Abs("testdata/profileload_all_tables_k10.txt")
	if err != nil {
		t.Fatal(err)
	}
	runs := filepath.Join(t.TempDir(), "runs")
	// Busy on the first two runs, then the real output.
	script := `echo x >> "$RUNS"; if [ "$(wc -l < "$RUNS")" -le 2 ]; then cat "$BUSY" >&2; exit 2; fi; cat "$GOOD"`
	script = "RUNS=" + shellQuote(runs) + " BUSY=" + shellQuote(busy) + " GOOD=" + shellQuote(good) + "; " + script
	cfg := SamplerConfig{Command: []string{"sh", "-c", script, "nodetool"}, Duration: 10 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	hot, err := Sample(ctx, cfg, []string{"cap.events"})
	if err != nil {
		t.Fatalf("err = %v, want the third run's keys", err)
	}
	if len(hot) == 0 {
		t.Fatal("no hot partitions from the run after the busy ones")
	}
	b, _ := os.ReadFile(runs)
	if n := strings.Count(string(b), "x"); n != 3 {
		t.Errorf("nodetool ran %d times, want 3 (two busy, one good)", n)
	}
}

// Busy on every try: ErrBusy after the bounded retries, and no retry when
// the deadline leaves no room for another window.
func TestSampleBusyGivesUp(t *testing.T) {
	cmd := []string{"sh", "-c", "cat testdata/profileload_busy.stderr >&2; exit 2"}
	_, err := Sample(context.Background(), SamplerConfig{Command: cmd, Duration: time.Millisecond}, []string{"cap.events"})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	start := time.Now()
	_, err = Sample(ctx, SamplerConfig{Command: cmd, Duration: 900 * time.Millisecond}, []string{"cap.events"})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
	if time.Since(start) > 2500*time.Millisecond {
		t.Errorf("waited %s: a retry was tried without room for its window", time.Since(start))
	}
}

// A run killed by the source's deadline (a JMX call that never answered)
// is a busy sampler; a failure that is not the sampler's is not.
func TestSampleTimeoutIsBusy(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2200*time.Millisecond)
	defer cancel()
	_, err := Sample(ctx, SamplerConfig{Command: []string{"sh", "-c", "sleep 30", "nodetool"}, Duration: 100 * time.Millisecond}, []string{"cap.events"})
	if !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy for a run past the deadline", err)
	}
	_, err = Sample(context.Background(), SamplerConfig{Command: []string{"sh", "-c", "echo 'nodetool: Failed to connect to 127.0.0.1:7199' >&2; exit 1"}, Duration: time.Millisecond}, []string{"cap.events"})
	if err == nil || errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want a failure that is not ErrBusy", err)
	}
}
