package collector

import (
	"errors"

	"github.com/partmon/partmon/collector/internal/cql"
	"github.com/partmon/partmon/model"
)

func tableOf(r cql.Row) (keyspace, table string, err error) {
	if keyspace, err = r.String("keyspace_name"); err != nil {
		return "", "", err
	}
	if table, err = r.String("table_name"); err != nil {
		return "", "", err
	}
	return keyspace, table, nil
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
