package collector

import (
	"sync"

	"github.com/partmon/partmon/model"
)

// schemaVersionCache remembers the schema version the last good schema was
// read at. Cassandra and ScyllaDB change schema_version (a digest of the
// whole schema) on every keyspace, table, column or index change, so while
// the version is the same, reading system_schema again would return the
// same rows.
//
// The version is read before the schema: a change that lands during the
// read is remembered under the older version and read again next time. A
// ring whose nodes disagree (a change still propagating) or report no
// version falls back to the answering node's own version.
type schemaVersionCache struct {
	mu      sync.Mutex
	version string
}

// unchanged says whether the schema read at the cached version is still
// current. A nil cache never is.
func (c *schemaVersionCache) unchanged(version string) bool {
	if c == nil || version == "" {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version == version
}

// readAt records the version a schema was just read at ("" forgets it).
func (c *schemaVersionCache) readAt(version string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.version = version
}

// agreedSchemaVersion is the schema version every node of the ring
// reports, "" when the ring is unknown, a node reports none, or they differ.
func agreedSchemaVersion(ring []model.Node) string {
	if len(ring) == 0 {
		return ""
	}
	v := ring[0].SchemaVersion
	for _, n := range ring[1:] {
		if n.SchemaVersion != v {
			return ""
		}
	}
	return v
}
