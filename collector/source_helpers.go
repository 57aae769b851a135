package collector

import (
	"errors"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

// tableOf reads the (keyspace_name, table_name) every per-table row has.
func tableOf(row *cql.Decoder) (keyspace, table string) {
	return row.String("keyspace_name"), row.String("table_name")
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
