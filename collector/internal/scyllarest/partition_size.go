package scyllarest

import (
	"context"
	"encoding/json"
	"fmt"
)

// SizeHistogram returns the node's partition size histogram for one table,
// merged over its sstables (memtables are not in it)
// (GET /column_family/metrics/estimated_row_size_histogram/{ks:cf}; "row"
// means partition there).
func (r *Client) SizeHistogram(ctx context.Context, keyspace, table string) (Histogram, error) {
	path, err := tablePath("/column_family/metrics/estimated_row_size_histogram/", keyspace, table)
	if err != nil {
		return Histogram{}, err
	}
	body, err := r.get(ctx, path, nil)
	if err != nil {
		return Histogram{}, err
	}
	h, err := parseHistogram(body)
	if err != nil {
		return Histogram{}, fmt.Errorf("parsing size histogram of %s.%s from %s: %w", keyspace, table, r.baseURL, err)
	}
	return h, nil
}

// MaxPartitionSize returns the largest partition, in bytes, of the table's
// sstables on this node (GET /column_family/metrics/max_row_size/{ks:cf}).
func (r *Client) MaxPartitionSize(ctx context.Context, keyspace, table string) (int64, error) {
	path, err := tablePath("/column_family/metrics/max_row_size/", keyspace, table)
	if err != nil {
		return 0, err
	}
	body, err := r.get(ctx, path, nil)
	if err != nil {
		return 0, err
	}
	n, err := parseLong(body)
	if err != nil {
		return 0, fmt.Errorf("parsing max partition size of %s.%s from %s: %w", keyspace, table, r.baseURL, err)
	}
	return n, nil
}

// parseLong reads a bare JSON integer (the api-doc "long" type).
func parseLong(body []byte) (int64, error) {
	var doc any
	if err := decodeStrict(body, &doc); err != nil {
		return 0, err
	}
	n, ok := doc.(json.Number)
	if !ok {
		return 0, fmt.Errorf("not a number but %s", jsonKind(doc))
	}
	v, err := n.Int64()
	if err != nil {
		return 0, fmt.Errorf("not an integer: %w", err)
	}
	if v < 0 {
		return 0, fmt.Errorf("negative size %d", v)
	}
	return v, nil
}
