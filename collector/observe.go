package collector

import "github.com/gocql/gocql"

// Option changes a Collector at construction, for embedders (the benchmark
// program) rather than operators: nothing here belongs in the YAML file.
type Option func(*Collector)

// WithQueryObserver hands every CQL request of every node session to o:
// one call per page fetched, with the rows of that page and the node that
// answered. It is how `make bench` counts round trips and rows per cycle.
func WithQueryObserver(o gocql.QueryObserver) Option {
	return func(c *Collector) { c.observer = o }
}

// StatementsSent is the number of statements each node's session has run
// since the Collector started, by node address; a statement read over
// several pages counts once (the observer sees every page).
func (c *Collector) StatementsSent() map[string]int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]int64, len(c.conns))
	for addr, n := range c.conns {
		out[addr] = n.Statements()
	}
	return out
}
