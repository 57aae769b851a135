// Package scyllarest reads one ScyllaDB node's REST API (port 10000, bound
// to 127.0.0.1 by the shipped scylla.yaml, so a sidecar is the natural
// caller). Every answer describes only the node asked. Response shapes follow
// scylladb/scylladb api/api-doc/*.json and api/*.cc at tag scylla-2025.1.14
// (unchanged in 6.2.3 and 2026.2.5); testdata/README.md names the exact
// functions.
package scyllarest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/partmon/partmon/collector/internal/cqlname"
)

// Client reads the REST API of one node.
type Client struct {
	baseURL string
	hc      *http.Client

	// MaxBodyBytes bounds every response body; a larger one is an error.
	MaxBodyBytes int64
	// Capacity is the toppartitions stream-summary size (ScyllaDB's
	// default and per-shard size is 256). TopPartitions never asks for less
	// than max(Capacity, 256, listSize).
	Capacity int
}

const (
	defaultMaxBody  = 8 << 20
	shardCapacity   = 256 // utils/top_k.hh space_saving_top_k default, used per shard
	errorExcerptLen = 512
)

// New returns a client for the node at baseURL, e.g.
// "http://127.0.0.1:10000". A nil hc uses a client without its own timeout:
// the caller's context bounds each call.
func New(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		hc = &http.Client{}
	}
	return &Client{
		baseURL:      strings.TrimRight(baseURL, "/"),
		hc:           hc,
		MaxBodyBytes: defaultMaxBody,
		Capacity:     shardCapacity,
	}
}

func tablePath(prefix, keyspace, table string) (string, error) {
	if err := cqlname.Check("keyspace", keyspace); err != nil {
		return "", err
	}
	if err := cqlname.Check("table", table); err != nil {
		return "", err
	}
	return prefix + keyspace + ":" + table, nil
}

// get performs one GET and returns the body of a 2xx answer.
func (r *Client) get(ctx context.Context, path string, q url.Values) ([]byte, error) {
	u := r.baseURL + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("building request GET %s: %w", u, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := r.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()

	limit := r.MaxBodyBytes
	if limit <= 0 {
		limit = defaultMaxBody
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("reading GET %s (HTTP %d, %d bytes so far): %w", u, resp.StatusCode, len(body), err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("GET %s: HTTP %d: %s", u, resp.StatusCode, errorExcerpt(body))
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("GET %s: response larger than %d bytes", u, limit)
	}
	return body, nil
}

// errorExcerpt gives the message of a seastar JSON error
// ({"message": "...", "code": N}, seastar http/exception.hh json_exception),
// or the start of any other body.
func errorExcerpt(body []byte) string {
	var e struct {
		Message *string `json:"message"`
	}
	if json.Unmarshal(body, &e) == nil && e.Message != nil {
		return truncate(*e.Message, errorExcerptLen)
	}
	s := strings.TrimSpace(string(body))
	if s == "" {
		return "(empty body)"
	}
	return strconv.Quote(truncate(s, errorExcerptLen))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// decodeStrict decodes exactly one JSON value from body into v, with numbers
// kept exact, and rejects trailing data.
func decodeStrict(body []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty body")
		}
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("truncated JSON: %w", err)
		}
		return fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errors.New("invalid JSON: trailing data after the value")
	}
	return nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
