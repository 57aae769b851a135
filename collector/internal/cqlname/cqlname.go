// Package cqlname checks keyspace and table names before they go into a URL
// (ScyllaDB REST) or onto a command line (nodetool).
package cqlname

import (
	"fmt"
	"strings"
)

// maxLen is the longest keyspace or table name both Cassandra and ScyllaDB accept.
const maxLen = 222

// Check accepts what CQL allows as an unquoted keyspace or table name in
// both Cassandra and ScyllaDB (letters, digits, underscore; at most 222
// bytes), so a name can never alter a URL or a command line. kind
// ("keyspace", "table") names the name in the error.
func Check(kind, name string) error {
	ok := name != "" && len(name) <= maxLen
	for i := 0; ok && i < len(name); i++ {
		c := name[i]
		ok = c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	if !ok {
		return fmt.Errorf("invalid %s name %q", kind, truncate(name, 120))
	}
	return nil
}

// SplitTable splits "ks.table" and checks both halves.
func SplitTable(qualified string) (keyspace, table string, err error) {
	keyspace, table, ok := strings.Cut(qualified, ".")
	if !ok {
		return "", "", fmt.Errorf("table %q is not of the form keyspace.table", qualified)
	}
	if err := Check("keyspace", keyspace); err != nil {
		return "", "", err
	}
	if err := Check("table", table); err != nil {
		return "", "", err
	}
	return keyspace, table, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
