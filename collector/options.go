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
