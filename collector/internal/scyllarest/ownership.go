package scyllarest

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"

	"github.com/partmon/partmon/collector/internal/cqlname"
)

// Ownership returns each node's effective ownership of a vnode keyspace as a
// fraction 0..1, keyed by the node's address, as nodetool status shows it
// (GET /storage_service/ownership/{keyspace}). ScyllaDB refuses a tablet
// keyspace here; use TableOwnership for those.
func (r *Client) Ownership(ctx context.Context, keyspace string) (map[string]float64, error) {
	return r.ownership(ctx, keyspace, "")
}

// TableOwnership is Ownership for one table, which tablet keyspaces require
// (the cf query parameter).
func (r *Client) TableOwnership(ctx context.Context, keyspace, table string) (map[string]float64, error) {
	if err := cqlname.Check("table", table); err != nil {
		return nil, err
	}
	return r.ownership(ctx, keyspace, table)
}

func (r *Client) ownership(ctx context.Context, keyspace, table string) (map[string]float64, error) {
	if err := cqlname.Check("keyspace", keyspace); err != nil {
		return nil, err
	}
	var q url.Values
	if table != "" {
		q = url.Values{"cf": {table}}
	}
	body, err := r.get(ctx, "/storage_service/ownership/"+keyspace, q)
	if err != nil {
		return nil, err
	}
	own, err := parseOwnership(body)
	if err != nil {
		return nil, fmt.Errorf("parsing ownership of %s from %s: %w", keyspace, r.baseURL, err)
	}
	return own, nil
}

// parseOwnership reads storage_service.json's array of mapper
// ({"key": address, "value": fraction formatted as a string}).
func parseOwnership(body []byte) (map[string]float64, error) {
	var entries []struct {
		Key   *string `json:"key"`
		Value *string `json:"value"`
	}
	if err := decodeStrict(body, &entries); err != nil {
		return nil, err
	}
	if entries == nil {
		return nil, errors.New("not an ownership list")
	}
	out := make(map[string]float64, len(entries))
	for i, e := range entries {
		if e.Key == nil || e.Value == nil || *e.Key == "" {
			return nil, fmt.Errorf("ownership entry %d lacks key or value", i)
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(*e.Value), 64)
		if err != nil {
			return nil, fmt.Errorf("ownership of %s: %w", *e.Key, err)
		}
		// Float rounding may put a sole owner a hair above 1.
		if math.IsNaN(v) || v < 0 || v > 1+1e-6 {
			return nil, fmt.Errorf("ownership of %s is %v, outside 0..1", *e.Key, v)
		}
		if _, dup := out[*e.Key]; dup {
			return nil, fmt.Errorf("ownership lists %s twice", *e.Key)
		}
		out[*e.Key] = v
	}
	return out, nil
}
