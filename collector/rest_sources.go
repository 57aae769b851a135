package collector

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"

	"github.com/partmon/partmon/collector/internal/cqlname"
	"github.com/partmon/partmon/collector/internal/scyllarest"
	"github.com/partmon/partmon/model"
)

// restClients hands out one ScyllaDB REST client per node.
type restClients struct {
	cfg ScyllaRESTConfig
	hc  *http.Client

	mu      sync.Mutex
	clients map[string]*scyllarest.Client
}

func newRESTClients(cfg ScyllaRESTConfig) *restClients {
	return &restClients{cfg: cfg, hc: &http.Client{}, clients: map[string]*scyllarest.Client{}}
}

func (r *restClients) forNode(addr string) *scyllarest.Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.clients[addr]
	if !ok {
		c = scyllarest.New(r.cfg.Scheme+"://"+net.JoinHostPort(addr, strconv.Itoa(r.cfg.Port)), r.hc)
		r.clients[addr] = c
	}
	return c
}

// needScylla gates the REST sources: they exist on ScyllaDB only.
func needScylla(in Input, what string) error {
	if in.Caps == nil || in.Caps.Engine != model.EngineScyllaDB {
		return fmt.Errorf("%w: %s is ScyllaDB's REST API", ErrUnsupported, what)
	}
	return nil
}

// userTables lists "keyspace.table" for every table outside system keyspaces.
func userTables(s *model.Schema) ([]string, error) {
	if s == nil {
		return nil, errors.New("the schema has not been read yet")
	}
	var out []string
	for _, ks := range s.Keyspaces {
		if ks.System {
			continue
		}
		for _, t := range ks.Tables {
			out = append(out, model.TableKey(ks.Name, t.Name))
		}
	}
	return out, nil
}

// restTopPartitionsSource samples the node's hottest keys through
// /storage_service/toppartitions/ (the call blocks for the sample window).
type restTopPartitionsSource struct{ rest *restClients }

func (restTopPartitionsSource) Name() string { return "scylla_top_partitions" }
func (restTopPartitionsSource) Scope() Scope { return NodeScope }

func (s restTopPartitionsSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := needScylla(in, "toppartitions"); err != nil {
		return 0, err
	}
	tables, err := userTables(in.Schema)
	if err != nil || len(tables) == 0 {
		return 0, err
	}
	hot, err := s.rest.forNode(in.Address).TopPartitions(ctx, tables, s.rest.cfg.SampleDuration, s.rest.cfg.ListSize)
	if err != nil {
		return 0, fmt.Errorf("sampling top partitions on %s: %w", in.Address, err)
	}
	out.Node.HotPartitions = hot
	return len(hot), nil
}

// restSizeHistogramSource reads each user table's partition size histogram
// (ScyllaDB has no max_partition_size table) and keeps its maximum.
type restSizeHistogramSource struct{ rest *restClients }

func (restSizeHistogramSource) Name() string { return "scylla_size_histogram" }
func (restSizeHistogramSource) Scope() Scope { return NodeScope }

func (restSizeHistogramSource) mergeTable(dst, src *model.TableStats) {
	dst.MaxPartitionBytes = src.MaxPartitionBytes
}

func (s restSizeHistogramSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if err := needScylla(in, "estimated_row_size_histogram"); err != nil {
		return 0, err
	}
	tables, err := userTables(in.Schema)
	if err != nil {
		return 0, err
	}
	client := s.rest.forNode(in.Address)
	for _, t := range tables {
		ks, tbl, err := cqlname.SplitTable(t)
		if err != nil {
			return 0, err
		}
		h, err := client.SizeHistogram(ctx, ks, tbl)
		if err != nil {
			return 0, fmt.Errorf("reading the size histogram of %s on %s: %w", t, in.Address, err)
		}
		out.Node.Stats(ks, tbl).MaxPartitionBytes = h.Max()
	}
	return len(tables), nil
}
