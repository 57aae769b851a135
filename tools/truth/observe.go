package truth

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// snapshotStats runs `nodetool tablestats -F json` for the keyspaces on
// every node, the nodes at once.
func snapshotStats(ctx context.Context, c *Cluster, keyspaces []string) (map[string]map[string]TableStat, error) {
	out := map[string]map[string]TableStat{}
	var mu sync.Mutex
	errs := make([]error, len(c.Hosts))
	var wg sync.WaitGroup
	for i, h := range c.Hosts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text, err := c.Nodetool(ctx, h, append([]string{"tablestats", "-F", "json"}, keyspaces...)...)
			if err != nil {
				errs[i] = err
				return
			}
			stats, err := parseTableStats(text)
			if err != nil {
				errs[i] = fmt.Errorf("%s: %w", h, err)
				return
			}
			mu.Lock()
			out[h] = stats
			mu.Unlock()
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// collectStatus runs `nodetool status` plain (load) and for each keyspace
// (effective ownership), on the first node.
func collectStatus(ctx context.Context, c *Cluster, keyspaces []string) (map[string][]StatusNode, error) {
	out := map[string][]StatusNode{}
	for _, ks := range append([]string{""}, keyspaces...) {
		args := []string{"status"}
		if ks != "" {
			args = append(args, ks)
		}
		text, err := c.Nodetool(ctx, c.Hosts[0], args...)
		if err != nil {
			return nil, err
		}
		nodes, err := parseStatus(text)
		if err != nil {
			return nil, fmt.Errorf("nodetool status %s: %w", ks, err)
		}
		out[ks] = nodes
	}
	return out, nil
}

// nodeTable is one table on one node ("ks.table").
type nodeTable struct{ node, table string }

func sortedPairs(set map[nodeTable]bool) []nodeTable {
	var out []nodeTable
	for p := range set {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].table != out[j].table {
			return out[i].table < out[j].table
		}
		return out[i].node < out[j].node
	})
	return out
}

// onPairs runs fn on every pair, two at a time (each is a nodetool JVM).
func onPairs(pairs []nodeTable, fn func(nodeTable) error) []error {
	var mu sync.Mutex
	var errs []error
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for _, p := range pairs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			if err := fn(p); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errs
}

// onEachNode runs fn on every pair, one lane per node: a node's pairs one
// after the other, the nodes side by side.
func onEachNode(pairs []nodeTable, fn func(nodeTable) error) []error {
	lanes := map[string][]nodeTable{}
	for _, p := range pairs {
		lanes[p.node] = append(lanes[p.node], p)
	}
	var mu sync.Mutex
	var errs []error
	var wg sync.WaitGroup
	for _, lane := range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, p := range lane {
				if err := fn(p); err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	return errs
}

// nodeTables holds one value per node and table ("ks.table"), set from
// several goroutines.
type nodeTables[T any] struct {
	mu sync.Mutex
	m  map[string]map[string]T
}

func (n *nodeTables[T]) set(p nodeTable, v T) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.m == nil {
		n.m = map[string]map[string]T{}
	}
	if n.m[p.node] == nil {
		n.m[p.node] = map[string]T{}
	}
	n.m[p.node][p.table] = v
}

// all is every value set, an empty map when none was (never nil: the
// results file says {} rather than null).
func (n *nodeTables[T]) all() map[string]map[string]T {
	if n.m == nil {
		return map[string]map[string]T{}
	}
	return n.m
}

// collectProfiles samples each table on each node with the real
// `nodetool profileload` while the traffic runs: -k 255 of -s 256 counters,
// so the listed counts add up to nearly every sampled operation. A window
// (Options.LaterWindow) is waiting, not work: the nodes sample side by side, each node's
// tables one after the other, so no two windows meet on a node (two at a
// time over all pairs took ~110 s of the CI subset's 420).
func collectProfiles(ctx context.Context, c *Cluster, pairs []nodeTable, window time.Duration) (map[string]map[string]Profile, []error) {
	var out nodeTables[Profile]
	errs := onEachNode(pairs, func(p nodeTable) error {
		ks, t, _ := strings.Cut(p.table, ".")
		text, err := c.Nodetool(ctx, p.node, "profileload", ks, t, strconv.FormatInt(window.Milliseconds(), 10), "-s", "256", "-k", "255", "-a", "READS,WRITES")
		if err != nil {
			return err
		}
		prof, err := parseProfile(text, p.table)
		if err != nil {
			return fmt.Errorf("%s on %s: %w", p.table, p.node, err)
		}
		out.set(p, prof)
		return nil
	})
	return out.all(), errs
}

// collectHistograms runs `nodetool tablehistograms` for each pair.
func collectHistograms(ctx context.Context, c *Cluster, pairs []nodeTable) (map[string]map[string]TableHistograms, []error) {
	var out nodeTables[TableHistograms]
	errs := onPairs(pairs, func(p nodeTable) error {
		ks, t, _ := strings.Cut(p.table, ".")
		text, err := c.Nodetool(ctx, p.node, "tablehistograms", ks, t)
		if err != nil {
			return err
		}
		h, err := parseHistograms(text)
		if err != nil {
			return fmt.Errorf("%s on %s: %w", p.table, p.node, err)
		}
		out.set(p, h)
		return nil
	})
	return out.all(), errs
}

// DefaultLaterWindow is the reference profileload window make truth takes.
const DefaultLaterWindow = 30 * time.Second

// laterWindow is Options.LaterWindow, DefaultLaterWindow when unset.
func (r *runner) laterWindow() time.Duration {
	if r.opt.LaterWindow > 0 {
		return r.opt.LaterWindow
	}
	return DefaultLaterWindow
}
