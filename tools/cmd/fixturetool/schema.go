package main

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/tools/testcluster"
)

// Keyspaces planted by the fixtures; pm_clean must produce no finding.
var fixtureKeyspaces = []string{"pm_big", "pm_hot", "pm_tomb", "pm_lowcard", "pm_ts", "pm_clean"}

// replication builds NetworkTopologyStrategy options from the DCs in cluster.env:
// rf replicas in each DC (capped by its node count), or only in the first DC.
func replication(rf int, firstDCOnly bool) (string, error) {
	env, err := testcluster.Env()
	if err != nil {
		return "", err
	}
	return replicationFor(env["DCS"], rf, firstDCOnly)
}

// replicationFor works from the comma-separated DC of each node, node 1 first.
func replicationFor(nodeDCs string, rf int, firstDCOnly bool) (string, error) {
	counts := map[string]int{}
	var order []string
	for _, dc := range strings.Split(nodeDCs, ",") {
		if dc == "" {
			continue
		}
		if counts[dc] == 0 {
			order = append(order, dc)
		}
		counts[dc]++
	}
	if len(order) == 0 {
		return "", fmt.Errorf("cluster.env names no data centers")
	}
	if firstDCOnly {
		order = order[:1]
	}
	sort.Strings(order)
	parts := []string{"'class': 'NetworkTopologyStrategy'"}
	for _, dc := range order {
		parts = append(parts, fmt.Sprintf("'%s': %d", dc, min(rf, counts[dc])))
	}
	return "{" + strings.Join(parts, ", ") + "}", nil
}

func createSchema(s *gocql.Session) error {
	rf3, err := replication(3, false)
	if err != nil {
		return err
	}
	rf1, err := replication(1, true)
	if err != nil {
		return err
	}
	keyspaces := []string{
		"CREATE KEYSPACE pm_big WITH replication = " + rf3,
		// RF 1: the hot key lives on exactly one node, so that node's share of
		// the table's traffic stands out (with RF 3 on 3 nodes every node is a replica).
		"CREATE KEYSPACE pm_hot WITH replication = " + rf1,
		"CREATE KEYSPACE pm_tomb WITH replication = " + rf3,
		"CREATE KEYSPACE pm_lowcard WITH replication = " + rf3,
		"CREATE KEYSPACE pm_ts WITH replication = " + rf3,
		"CREATE KEYSPACE pm_clean WITH replication = " + rf3,
	}
	tables := []string{
		// No speculative retry: the analyzer's acceptance test reads the wide key
		// whole on one replica and in pages on another and asks each node what
		// it executed. With the default 99p, a whole read (seconds, far above the
		// table's p99) is sent again to a second replica, at random the paged one.
		"CREATE TABLE pm_big.events (id text, seq int, payload blob, PRIMARY KEY ((id), seq)) WITH speculative_retry = 'NONE'",
		"CREATE TABLE pm_hot.kv (k text PRIMARY KEY, v blob)",
		"CREATE TABLE pm_tomb.queue (queue text, id int, payload text, PRIMARY KEY ((queue), id))",
		"CREATE TABLE pm_lowcard.orders_by_status (status text, order_id timeuuid, customer text, amount int, PRIMARY KEY ((status), order_id))",
		"CREATE TABLE pm_ts.readings (sensor_id text, ts timestamp, value double, PRIMARY KEY ((sensor_id), ts))",
		"CREATE TABLE pm_clean.users_by_id (user_id uuid PRIMARY KEY, name text, email text)",
	}
	// The keyspaces side by side, then their tables: a fixture load's 12
	// CREATEs one after the other took 13-15 s of waiting for the nodes to
	// agree on the schema after each.
	if err := testcluster.ExecSideBySide(s, keyspaces); err != nil {
		return err
	}
	return testcluster.ExecSideBySide(s, tables)
}

func dropKeyspaces(s *gocql.Session) error {
	for _, ks := range fixtureKeyspaces {
		if err := s.Query("DROP KEYSPACE IF EXISTS " + ks).Exec(); err != nil {
			return fmt.Errorf("dropping %s: %w", ks, err)
		}
	}
	return nil
}

// existingKeyspaces lists the fixture keyspaces present in the schema.
func existingKeyspaces(s *gocql.Session) (map[string]bool, error) {
	iter := s.Query("SELECT keyspace_name FROM system_schema.keyspaces").Iter()
	have := map[string]bool{}
	var name string
	for iter.Scan(&name) {
		have[name] = true
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("reading system_schema.keyspaces: %w", err)
	}
	return have, nil
}

func dropCommand(ctx context.Context) error {
	s, err := clusterSession()
	if err != nil {
		return err
	}
	defer s.Close()
	if err := dropKeyspaces(s); err != nil {
		return err
	}
	logf("dropped %s", strings.Join(fixtureKeyspaces, ", "))
	clearState()
	_, err = writeTruth(ctx, s)
	return err
}
