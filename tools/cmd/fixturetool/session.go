package main

import (
	"fmt"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/tools/testcluster"
)

// clusterSession talks to every node, token-aware, so writes go to replicas.
func clusterSession() (*gocql.Session, error) {
	cfg := testcluster.NewClusterConfig(testcluster.Hosts()...)
	cfg.PoolConfig.HostSelectionPolicy = gocql.TokenAwareHostPolicy(gocql.RoundRobinHostPolicy())
	cfg.NumConns = 2
	s, err := cfg.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connecting to %v: %w", testcluster.Hosts(), err)
	}
	return s, nil
}
