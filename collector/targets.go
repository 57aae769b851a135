package collector

import (
	"context"
	"fmt"
	"net"
	"slices"
	"sort"
	"time"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
	"go.uber.org/zap"
)

// nodeConn is the pinned session of one node, probed for its capabilities.
type nodeConn = cql.Node[*Capabilities]

// target is a node partmon reads node-local sources from.
type target struct {
	conn *nodeConn
	own  bool // the first configured host
}

// targets resolves the nodes to read: the first host in sidecar mode; in
// cluster mode every node of the last ring read in collector.datacenters
// (the configured hosts until the ring is known). Results of nodes no longer
// targeted are dropped.
func (c *Collector) targets(ctx context.Context) ([]target, error) {
	own, ownPort, err := c.resolveHost(ctx, c.cfg.Hosts[0])
	if err != nil && c.cfg.Mode == ModeSidecar {
		return nil, fmt.Errorf("resolving own node %q: %w", c.cfg.Hosts[0], err)
	}
	var out []target
	seen := map[string]bool{}
	add := func(addr string, port int) {
		if !seen[addr] {
			seen[addr] = true
			out = append(out, target{conn: c.conn(addr, port), own: addr == own})
		}
	}
	switch {
	case c.cfg.Mode == ModeSidecar:
		add(own, ownPort)
	case len(c.ring()) > 0:
		ports := c.configuredPorts(ctx)
		ring := c.ring()
		for _, n := range ring {
			if !c.readsDC(n.DC) {
				continue
			}
			port, ok := ports[n.Address]
			if !ok {
				port = c.cfg.Port
			}
			add(n.Address, port)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no node of the ring is in collector.datacenters %v (the ring's DCs: %v)", c.cfg.Datacenters, ringDCs(ring))
		}
	default:
		for _, h := range c.cfg.Hosts {
			addr, port, err := c.resolveHost(ctx, h)
			if err != nil {
				c.log.Warn("cannot resolve host", zap.String("node", h), zap.Error(err))
				continue
			}
			add(addr, port)
		}
	}
	c.mu.Lock()
	for k := range c.results {
		if k.node != "" && !seen[k.node] {
			delete(c.results, k)
		}
	}
	c.mu.Unlock()
	return out, nil
}

// readsDC: the nodes of DC dc are read (collector.datacenters lists it, or
// lists nothing).
func (c *Collector) readsDC(dc string) bool {
	return len(c.cfg.Datacenters) == 0 || slices.Contains(c.cfg.Datacenters, dc)
}

// ringDCs are the DCs of ring's nodes, sorted, each once.
func ringDCs(ring []model.Node) []string {
	var dcs []string
	for _, n := range ring {
		if !slices.Contains(dcs, n.DC) {
			dcs = append(dcs, n.DC)
		}
	}
	sort.Strings(dcs)
	return dcs
}

func (c *Collector) configuredPorts(ctx context.Context) map[string]int {
	ports := map[string]int{}
	for _, h := range c.cfg.Hosts {
		if addr, port, err := c.resolveHost(ctx, h); err == nil {
			ports[addr] = port
		}
	}
	return ports
}

// clusterCandidates are the nodes a cluster-scope source may be read from,
// in order of preference: the configured hosts (the own node first), then
// the ring's nodes in the local DC, then the rest. unresolved are the
// configured hosts whose names did not resolve.
func (c *Collector) clusterCandidates(ctx context.Context) (out []target, unresolved []error) {
	seen := map[string]bool{}
	add := func(addr string, port int, own bool) {
		if !seen[addr] {
			seen[addr] = true
			out = append(out, target{conn: c.conn(addr, port), own: own})
		}
	}
	for i, h := range c.cfg.Hosts {
		addr, port, err := c.resolveHost(ctx, h)
		if err != nil {
			unresolved = append(unresolved, fmt.Errorf("%s: %w", h, err))
			continue
		}
		add(addr, port, i == 0)
	}
	if c.cfg.Mode == ModeCluster {
		ring := c.ring()
		sort.SliceStable(ring, func(i, j int) bool {
			return ring[i].DC == c.cfg.LocalDC && ring[j].DC != c.cfg.LocalDC
		})
		for _, n := range ring {
			add(n.Address, c.cfg.Port, false)
		}
	}
	return out, unresolved
}

// resolveHost turns a configured host into an IP and port. The CQL session
// is keyed by IP (the ring names nodes by IP), so a name must resolve.
func (c *Collector) resolveHost(ctx context.Context, h string) (string, int, error) {
	host, port, err := splitHost(h, c.cfg.Port)
	if err != nil {
		return "", 0, err
	}
	if ip := net.ParseIP(host); ip != nil {
		return ip.String(), port, nil
	}
	ips, err := net.DefaultResolver.LookupIP(ctx, "ip", host)
	if err != nil {
		return "", 0, err
	}
	if len(ips) == 0 {
		return "", 0, fmt.Errorf("%s resolves to no address", host)
	}
	for _, ip := range ips {
		if ip.To4() != nil {
			return ip.String(), port, nil
		}
	}
	return ips[0].String(), port, nil
}

func (c *Collector) conn(addr string, port int) *nodeConn {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.conns[addr]
	if !ok {
		n = cql.NewNode(addr, port, &c.session, c.probeNode, c.log)
		c.conns[addr] = n
	}
	return n
}

// ring is the last good topology's node list (a copy).
func (c *Collector) ring() []model.Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	res, ok := c.results[resultKey{source: "topology"}]
	if !ok || res.out == nil {
		return nil
	}
	return append([]model.Node(nil), res.out.Cluster.Nodes...)
}

// ringFreshFor bounds the age of the ring handed to cluster-scope sources:
// the schema source trusts its schema versions instead of asking the node,
// which may delay noticing a schema change by at most this much.
const ringFreshFor = 30 * time.Second

// freshRing is ring() if the topology was read within ringFreshFor, else nil.
func (c *Collector) freshRing() []model.Node {
	c.mu.Lock()
	res, ok := c.results[resultKey{source: "topology"}]
	fresh := ok && res.out != nil && c.now().Sub(res.status.LastSuccess) <= ringFreshFor
	c.mu.Unlock()
	if !fresh {
		return nil
	}
	return c.ring()
}
