package main

import (
	"context"
	"fmt"

	"github.com/partmon/partmon/tools/testcluster"
)

// authReplication spreads system_auth over every DC (it starts as SimpleStrategy
// RF 1, which with two DCs fails LOCAL_ONE permission reads in the DC without
// the replica) and repairs it so the default superuser exists everywhere.
// `cluster up --auth` runs it.
func authReplication(ctx context.Context) error {
	rf, err := replication(3, false)
	if err != nil {
		return err
	}
	s, err := clusterSession()
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Query("ALTER KEYSPACE system_auth WITH replication = " + rf).Exec(); err != nil {
		return fmt.Errorf("altering system_auth replication: %w", err)
	}
	// One node at a time: overlapping repairs of the same ranges fail.
	for n := range testcluster.Hosts() {
		if _, err := testcluster.Nodetool(ctx, n+1, "repair", "--full", "system_auth"); err != nil {
			return err
		}
	}
	logf("system_auth replication set to %s and repaired", rf)
	return nil
}
