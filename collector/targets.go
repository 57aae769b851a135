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

// nodePicker picks the nodes to read from the configured hosts and the last
// ring read: every node-scope source's targets and the cluster-scope
// sources' candidates, in order of preference.
type nodePicker struct {
	cfg  Config
	log  *zap.Logger
	conn func(addr string, port int) *nodeConn // the node's pinned session
}

// targets resolves the nodes to read: the first host in sidecar mode; in
// cluster mode every node of the last ring read in collector.datacenters
// (the configured hosts until the ring is known). Results of nodes no longer
// targeted are dropped.
func (c *Collector) targets(ctx context.Context) ([]target, error) {
	out, err := c.pick.targets(ctx, c.ring())
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, t := range out {
		seen[t.conn.Address()] = true
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

// targets are the nodes to read given ring, the last ring read (nil before
// the first).
func (p *nodePicker) targets(ctx context.Context, ring []model.Node) ([]target, error) {
	own, ownPort, err := resolveHost(ctx, p.cfg.Hosts[0], p.cfg.Port)
	if err != nil && p.cfg.Mode == ModeSidecar {
		return nil, fmt.Errorf("resolving own node %q: %w", p.cfg.Hosts[0], err)
	}
	var out []target
	seen := map[string]bool{}
	add := func(addr string, port int) {
		if !seen[addr] {
			seen[addr] = true
			out = append(out, target{conn: p.conn(addr, port), own: addr == own})
		}
	}
	switch {
	case p.cfg.Mode == ModeSidecar:
		add(own, ownPort)
	case len(ring) > 0:
		ports := p.configuredPorts(ctx)
		for _, n := range ring {
			if !p.readsDC(n.DC) {
				continue
			}
			port, ok := ports[n.Address]
			if !ok {
				port = p.cfg.Port
			}
			add(n.Address, port)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no node of the ring is in collector.datacenters %v (the ring's DCs: %v)", p.cfg.Datacenters, ringDCs(ring))
		}
	default:
		for _, h := range p.cfg.Hosts {
			addr, port, err := resolveHost(ctx, h, p.cfg.Port)
			if err != nil {
				p.log.Warn("cannot resolve host", zap.String("node", h), zap.Error(err))
				continue
			}
			add(addr, port)
		}
	}
	return out, nil
}

// readsDC: the nodes of DC dc are read (collector.datacenters lists it, or
// lists nothing).
func (p *nodePicker) readsDC(dc string) bool {
	return len(p.cfg.Datacenters) == 0 || slices.Contains(p.cfg.Datacenters, dc)
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

func (p *nodePicker) configuredPorts(ctx context.Context) map[string]int {
	ports := map[string]int{}
	for _, h := range p.cfg.Hosts {
		if addr, port, err := resolveHost(ctx, h, p.cfg.Port); err == nil {
			ports[addr] = port
		}
	}
	return ports
}

// clusterCandidates are the nodes a cluster-scope source may be read from,
// in order of preference: the configured hosts (the own node first), then
// the nodes of ring (the last ring read) in the local DC, then the rest.
// unresolved are the configured hosts whose names did not resolve.
func (p *nodePicker) clusterCandidates(ctx context.Context, ring []model.Node) (out []target, unresolved []error) {
	seen := map[string]bool{}
	add := func(addr string, port int, own bool) {
		if !seen[addr] {
			seen[addr] = true
			out = append(out, target{conn: p.conn(addr, port), own: own})
		}
	}
	for i, h := range p.cfg.Hosts {
		addr, port, err := resolveHost(ctx, h, p.cfg.Port)
		if err != nil {
			unresolved = append(unresolved, fmt.Errorf("%s: %w", h, err))
			continue
		}
		add(addr, port, i == 0)
	}
	if p.cfg.Mode == ModeCluster {
		sort.SliceStable(ring, func(i, j int) bool {
			return ring[i].DC == p.cfg.LocalDC && ring[j].DC != p.cfg.LocalDC
		})
		for _, n := range ring {
			add(n.Address, p.cfg.Port, false)
		}
	}
	return out, unresolved
}

// resolveHost turns a configured host into an IP and port. The CQL session
// is keyed by IP (the ring names nodes by IP), so a name must resolve. A
// host without a port gets defaultPort.
func resolveHost(ctx context.Context, h string, defaultPort int) (string, int, error) {
	host, port, err := splitHost(h, defaultPort)
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
