//go:build integration

package collector

import (
	"bytes"
	"context"
	"math"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/nodetool"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

const (
	// The traffic must outlast the probe and both sampling windows, each
	// behind a nodetool JVM start: ~2 s on a quiet box, 30 s and more on a
	// loaded one (4.1 at load 35: both windows opened after 40 s of traffic
	// had ended, and sampled nothing). It is a bound, under the test's own
	// 5-minute deadline: the test stops the traffic as soon as both windows
	// are in (~20 s on a quiet box). 10-s windows: at the paced
	// 300 ops/s of `fixtures hotkey` the owner samples ~2,500 operations,
	// which put the dominance within ~0.01 of the truth, inside the 0.05 below.
	hotTrafficSeconds = 240
	hotSampleWindow   = 10 * time.Second
	// dominanceTolerance allows for the sample window catching a slightly
	// different mix than the whole traffic run the truth measured.
	dominanceTolerance = 0.05
)

// TestNodetoolSamplerFindsHotKey drives hot-key traffic on the real cluster
// and samples, with the real nodetool (one run over every table of the
// node), the node that owns the hot key and one that does not, at the same
// time.
func TestNodetoolSamplerFindsHotKey(t *testing.T) {
	planted := plantedHotKey(t)
	owner := testcluster.NodeIndex(planted.Nodes[0])
	other := 0
	for i, h := range testcluster.Hosts() {
		if i+1 != owner && h != "" {
			other = i + 1
			break
		}
	}
	if owner == 0 || other == 0 {
		t.Fatalf("hot key replica %s is not one of %v, or no other node", planted.Nodes[0], testcluster.Hosts())
	}
	root, err := testkit.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	traffic, trafficOut := startHotTraffic(ctx, t, root)
	nodetoolCmd := func(n int) []string {
		return []string{filepath.Join(root, "deploy", "local", "cluster"), "nodetool", "--dir", testcluster.Dir(), strconv.Itoa(n)}
	}
	table := []string{planted.Keyspace + "." + planted.Table}

	waitForHotKey(ctx, t, nodetoolCmd(owner), table, planted.Key)

	cfg := NodetoolSamplerConfig{Duration: hotSampleWindow, Capacity: 256, TopK: 255, Samplers: []string{"READS", "WRITES"}}
	var wg sync.WaitGroup
	results := map[int][]model.HotPartition{}
	errs := map[int]error{}
	var mu sync.Mutex
	for _, n := range []int{owner, other} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := cfg
			c.Command = nodetoolCmd(n)
			start := time.Now()
			hot, err := nodetool.Sample(ctx, c, table)
			t.Logf("node %d: profileload of %s took %s for a %s window, %d entries", n, table[0], time.Since(start).Round(10*time.Millisecond), hotSampleWindow, len(hot))
			mu.Lock()
			results[n], errs[n] = hot, err
			mu.Unlock()
		}()
	}
	wg.Wait()
	for n, err := range errs {
		if err != nil {
			t.Fatalf("sampling node %d: %v", n, err)
		}
	}

	// Both windows are in: end the traffic now rather than at its bound
	// (SIGTERM stops it early). The truth is rewritten by the traffic run
	// with the share it measured over its whole run, the windows inside it.
	if err := traffic.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("stopping the hot-key traffic: %v", err)
	}
	if err := traffic.Wait(); err != nil {
		t.Fatalf("hot-key traffic: %v: %s", err, trafficOut)
	}
	t.Logf("traffic: %s", bytes.TrimSpace(trafficOut.Bytes()))
	truth, err := testcluster.LoadTruth()
	if err != nil {
		t.Fatal(err)
	}
	hotShare, ownerShare := truthShare(t, truth, "hot_partition"), truthShare(t, truth, "hot_token_range")
	// Of the operations reaching the owner (ownerShare of all), the hot key's are hotShare of all.
	wantDominance := hotShare / ownerShare

	for _, op := range []string{"read", "write"} {
		top := topOf(results[owner], op)
		if len(top) == 0 || top[0].Key != planted.Key {
			t.Fatalf("node %d %s: top key %+v, want %q", owner, op, first(top), planted.Key)
		}
		// One run lists the node's Capacity−1 highest counts over every
		// table. Not cut, the table's listed sum is what the sampler saw;
		// cut (Total 0), that sum is a lower bound of the table's
		// operations, so the dominance it gives is an upper bound.
		var listed int64
		for _, h := range top {
			listed += h.Count
		}
		got := float64(top[0].Count) / float64(listed)
		t.Logf("node %d %s: %q %d of %d listed (%.3f), total %d, expected dominance %.3f (hot share %.3f, owner share %.3f)",
			owner, op, planted.Key, top[0].Count, listed, got, top[0].Total, wantDominance, hotShare, ownerShare)
		switch {
		case top[0].Total != 0 && top[0].Total != listed:
			t.Errorf("node %d %s: total %d, want the listed sum %d or 0 when the list was cut", owner, op, top[0].Total, listed)
		case top[0].Total != 0 && math.Abs(got-wantDominance) > dominanceTolerance:
			t.Errorf("node %d %s: hot key dominance %.3f, want %.3f ± %.2f", owner, op, got, wantDominance, dominanceTolerance)
		case top[0].Total == 0 && len(top) > 0 && got < wantDominance-dominanceTolerance:
			t.Errorf("node %d %s: the list was cut, and its dominance bound %.3f is below the expected %.3f − %.2f", owner, op, got, wantDominance, dominanceTolerance)
		}
		if top[0].Window != hotSampleWindow.Seconds() || top[0].Source != "nodetool" {
			t.Errorf("window %v source %q", top[0].Window, top[0].Source)
		}
		for _, h := range topOf(results[other], op) {
			if h.Key == planted.Key {
				t.Errorf("node %d does not own %q but sampled it %d times", other, planted.Key, h.Count)
			}
		}
	}
}

// startHotTraffic runs `deploy/local/fixtures hotkey` in its own process
// group, killed with the group if the test ends first.
func startHotTraffic(ctx context.Context, t *testing.T, root string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.CommandContext(ctx, filepath.Join(root, "deploy", "local", "fixtures"),
		"--dir", testcluster.Dir(), "hotkey", "--seconds", strconv.Itoa(hotTrafficSeconds))
	cmd.Dir = root
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting hot-key traffic: %v", err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		}
	})
	return cmd, &out
}

// plantedHotKey is the fixtures' hot key, on its one replica.
func plantedHotKey(t *testing.T) testcluster.Problem {
	t.Helper()
	truth, err := testcluster.LoadTruth()
	if err != nil {
		t.Fatal(err)
	}
	hots := truth.Find("hot_partition")
	if len(hots) != 1 || len(hots[0].Nodes) != 1 {
		t.Fatalf("truth has %d hot_partition problems (%+v), want one with one replica", len(hots), hots)
	}
	return hots[0]
}

// waitForHotKey samples the node behind command in short windows until
// the hot key shows: the traffic has reached it.
func waitForHotKey(ctx context.Context, t *testing.T, command, table []string, key string) {
	t.Helper()
	probe := NodetoolSamplerConfig{Command: command, Duration: 2 * time.Second, TopK: 1, Samplers: []string{"READS"}}
	for {
		if ctx.Err() != nil {
			t.Fatalf("hot key never sampled by %v before the deadline", command)
		}
		hot, err := nodetool.Sample(ctx, probe, table)
		if err != nil {
			t.Fatalf("probe sample: %v", err)
		}
		if len(hot) > 0 && hot[0].Key == key {
			return
		}
	}
}

func truthShare(t *testing.T, truth *testcluster.Truth, kind string) float64 {
	t.Helper()
	ps := truth.Find(kind)
	if len(ps) != 1 || ps[0].ExpectedShare <= 0 || ps[0].ExpectedShare > 1 {
		t.Fatalf("truth %s: %+v, want one problem with a share in (0, 1]", kind, ps)
	}
	return ps[0].ExpectedShare
}

func topOf(hot []model.HotPartition, op string) []model.HotPartition {
	var out []model.HotPartition
	for _, h := range hot {
		if h.Op == op {
			out = append(out, h)
		}
	}
	return out
}

func first(hot []model.HotPartition) *model.HotPartition {
	if len(hot) == 0 {
		return nil
	}
	return &hot[0]
}
