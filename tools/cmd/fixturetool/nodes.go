package main

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/partmon/partmon/tools/testcluster"
)

// onEveryNode runs the real nodetool with args on every node concurrently.
func onEveryNode(ctx context.Context, args ...string) error {
	hosts := testcluster.Hosts()
	var wg sync.WaitGroup
	errs := make([]error, len(hosts))
	for i := range hosts {
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			_, errs[n-1] = testcluster.Nodetool(ctx, n, args...)
		}(i + 1)
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// endpoints asks the real cluster which nodes hold key (nodetool getendpoints).
func endpoints(ctx context.Context, keyspace, table, key string) ([]string, error) {
	out, err := testcluster.Nodetool(ctx, 1, "getendpoints", keyspace, table, key)
	if err != nil {
		return nil, err
	}
	var nodes []string
	for _, line := range strings.Split(out, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			nodes = append(nodes, line)
		}
	}
	if len(nodes) == 0 {
		return nil, fmt.Errorf("getendpoints %s %s %s printed no node", keyspace, table, key)
	}
	return nodes, nil
}

// statusLine matches a node line of `nodetool status KEYSPACE`:
// UN  127.0.0.1  1.2 MiB  1  33.3%  <host id>  r1
var statusLine = regexp.MustCompile(`^([UD][NLJM])\s+(\S+)\s+.+?\s+(\d+)\s+([\d.]+)%\s+([0-9a-f-]{36})\s+(\S+)\s*$`)

type ownership struct {
	Node string
	DC   string
	Owns float64 // effective, 0..1
}

// effectiveOwnership asks the real `nodetool status KEYSPACE` ("Owns (effective)").
func effectiveOwnership(ctx context.Context, keyspace string) ([]ownership, error) {
	out, err := testcluster.Nodetool(ctx, 1, "status", keyspace)
	if err != nil {
		return nil, err
	}
	res, err := parseOwnership(out)
	if err != nil {
		return nil, fmt.Errorf("nodetool status %s: %w", keyspace, err)
	}
	return res, nil
}

func parseOwnership(out string) ([]ownership, error) {
	var res []ownership
	dc := ""
	for _, line := range strings.Split(out, "\n") {
		if after, ok := strings.CutPrefix(line, "Datacenter: "); ok {
			dc = strings.TrimSpace(after)
			continue
		}
		m := statusLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		pct, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			return nil, fmt.Errorf("parsing ownership %q: %w", m[4], err)
		}
		res = append(res, ownership{Node: m[2], DC: dc, Owns: pct / 100})
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("no node lines with an effective ownership in %q", out)
	}
	return res, nil
}
