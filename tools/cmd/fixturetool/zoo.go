package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/tools/testcluster"
)

// The schema zoo (`fixtures zoo`): one keyspace holding every CQL schema
// feature the cluster's version has (materialized views, every index class,
// user types, tuples, counters, statics, collections, duration, vector,
// CDC, a dropped column, case-sensitive and quoted names), with data and
// traffic. One problem is planted, on a view; every other table is a good
// design that must stay silent.

// zooObject is one statement of the zoo and what it exercises; gate says
// why a cluster may not hold it ("" always holds it).
type zooObject struct {
	name, feature, stmt string
	gate                zooGate
}

type zooGate int

const (
	always zooGate = iota
	series50
	needsViews
	needsSASI
	needsUDF
	needsCDC
)

// zooOrders: each insert also writes both views (a read before write and a
// batchlog entry on the base replica), so the rows are few and wide.
const zooOrders = 8000

// zooObjects lists the zoo in creation order (types before the tables
// using them, bases before their views and indexes).
func zooObjects(rf string) []zooObject {
	ks := testcluster.ZooKeyspace
	return []zooObject{
		{ks, "keyspace", "CREATE KEYSPACE " + ks + " WITH replication = " + rf, always},
		{ks + ".address", "user-defined type with a quoted field", "CREATE TYPE pm_zoo.address (street text, \"zip code\" text, city text)", always},
		{ks + ".everything", "every column type: frozen and non-frozen UDT, tuple, static, list/set/map, frozen collection, duration, inet, varint, decimal, blob, boolean, tinyint",
			`CREATE TABLE pm_zoo.everything (id uuid, seq int, home frozen<address>, work address, pair tuple<int, text>,
			owner text static, tags list<text>, nums set<int>, attrs map<text, int>, fixed frozen<list<int>>, took duration,
			addr inet, big varint, amount decimal, raw blob, flag boolean, small tinyint, note text, label text, old_col text,
			PRIMARY KEY ((id), seq))`, always},
		{ks + ".everything.old_col", "dropped column", "ALTER TABLE pm_zoo.everything DROP old_col", always},
		{ks + ".everything.embedding", "vector<float, 3> (5.0)", "ALTER TABLE pm_zoo.everything ADD embedding vector<float, 3>", series50},
		{ks + ".everything_amount_idx", "legacy secondary index", "CREATE INDEX everything_amount_idx ON pm_zoo.everything (amount)", always},
		{ks + ".everything_tags_idx", "legacy secondary index on a collection's values", "CREATE INDEX everything_tags_idx ON pm_zoo.everything (values(tags))", always},
		{ks + ".everything_note_sai", "storage-attached index (5.0)", "CREATE INDEX everything_note_sai ON pm_zoo.everything (note) USING 'sai'", series50},
		{ks + ".everything_embedding_sai", "vector index (5.0)", "CREATE INDEX everything_embedding_sai ON pm_zoo.everything (embedding) USING 'sai'", series50},
		{ks + ".everything_label_sasi", "SASI index", "CREATE CUSTOM INDEX everything_label_sasi ON pm_zoo.everything (label) USING 'org.apache.cassandra.index.sasi.SASIIndex'", needsSASI},
		{ks + ".page_views", "counter table", "CREATE TABLE pm_zoo.page_views (page text PRIMARY KEY, views counter)", always},
		{ks + ".Events", "case-sensitive table name; column names with a space, a dot, quotes and non-ASCII letters",
			`CREATE TABLE pm_zoo."Events" ("user id" text, "a.b" int, "say ""hi""" text, "größe" int, PRIMARY KEY (("user id"), "a.b"))`, always},
		{ks + ".events", "the same table name in lower case", "CREATE TABLE pm_zoo.events (id text PRIMARY KEY, payload text)", always},
		{ks + ".audit", "CDC-enabled table", "CREATE TABLE pm_zoo.audit (id uuid PRIMARY KEY, what text) WITH cdc = true", needsCDC},
		{ks + ".twice", "user-defined function", "CREATE FUNCTION pm_zoo.twice (x int) RETURNS NULL ON NULL INPUT RETURNS int LANGUAGE java AS 'return x * 2;'", needsUDF},
		{ks + ".orders", "base table of two materialized views", "CREATE TABLE pm_zoo.orders (id uuid PRIMARY KEY, paid boolean, customer text, amount int, note text)", needsViews},
		{ks + ".orders_by_paid", "materialized view keyed by a boolean (planted: low_cardinality_key)",
			"CREATE MATERIALIZED VIEW pm_zoo.orders_by_paid AS SELECT * FROM pm_zoo.orders WHERE paid IS NOT NULL AND id IS NOT NULL PRIMARY KEY ((paid), id)", needsViews},
		{ks + ".orders_by_customer", "materialized view keyed by a high-cardinality column (good design)",
			"CREATE MATERIALIZED VIEW pm_zoo.orders_by_customer AS SELECT id, customer, amount FROM pm_zoo.orders WHERE customer IS NOT NULL AND id IS NOT NULL PRIMARY KEY ((customer), id)", needsViews},
	}
}

// zooGates says, per gate, why this cluster cannot hold its objects ("" when it can).
func zooGates() (map[zooGate]string, string, error) {
	version, err := testcluster.Version()
	if err != nil {
		return nil, "", err
	}
	env, err := testcluster.Env()
	if err != nil {
		return nil, "", err
	}
	off := func(key, flag string) string {
		if env[key] == "true" {
			return ""
		}
		return "the cluster was started without " + flag
	}
	gates := map[zooGate]string{
		series50:   "",
		needsViews: off("MATERIALIZED_VIEWS", "--materialized-views"),
		needsSASI:  off("SASI", "--sasi"),
		needsUDF:   off("UDF", "--udf"),
		needsCDC:   off("CDC", "--cdc"),
	}
	if testcluster.Series(version) != "5.0" {
		gates[series50] = "Cassandra " + version + " has no such feature (5.0+)"
	}
	return gates, version, nil
}

// zooCommand plants the zoo (or drops it) and writes its truth.
func zooCommand(ctx context.Context, drop bool) error {
	s, err := clusterSession()
	if err != nil {
		return err
	}
	defer s.Close()
	if err := s.Query("DROP KEYSPACE IF EXISTS " + testcluster.ZooKeyspace).WithContext(ctx).Exec(); err != nil {
		return fmt.Errorf("dropping %s: %w", testcluster.ZooKeyspace, err)
	}
	if drop {
		return os.Remove(testcluster.ZooTruthFile())
	}
	gates, version, err := zooGates()
	if err != nil {
		return err
	}
	rf, err := replication(3, false)
	if err != nil {
		return err
	}
	truth := &testcluster.ZooTruth{Version: version, Objects: map[string]string{}, Views: map[string]string{}, Left: map[string]string{}}
	for _, o := range zooObjects(rf) {
		if why := gates[o.gate]; o.gate != always && why != "" {
			truth.Left[o.feature] = why
			continue
		}
		if err := s.Query(o.stmt).WithContext(ctx).Exec(); err != nil {
			return fmt.Errorf("creating %s (%s): %w", o.name, o.feature, err)
		}
		truth.Objects[o.name] = o.feature
	}
	if err := writeZoo(ctx, s, truth); err != nil {
		return err
	}
	return writeZooTruth(ctx, truth)
}

// writeZoo fills every zoo table, reads each back (traffic the latency
// tables count), then flushes and refreshes the size estimates so the
// node-local size sources have the zoo on disk.
func writeZoo(ctx context.Context, s *gocql.Session, truth *testcluster.ZooTruth) error {
	has := func(name string) bool { _, ok := truth.Objects[testcluster.ZooKeyspace+"."+name]; return ok }
	type rows struct {
		n    int
		stmt string
		args func(i int) []any
	}
	var writes []rows
	write := func(n int, stmt string, args func(i int) []any) { writes = append(writes, rows{n, stmt, args}) }
	write(200, `INSERT INTO pm_zoo.everything (id, seq, home, work, pair, owner, tags, nums, attrs, fixed, took, addr, big, amount, raw, flag, small, note, label)
		VALUES (?, ?, {street: 'Main St 1', "zip code": '1000', city: 'Zürich'}, {city: 'Bern'}, (1, 'one'), 'owner', ['a', 'b'], {1, 2}, {'k': 1}, [1, 2, 3], 1h2m, '127.0.0.1', 12345678901234567890, 12.5, 0xcafe, true, 7, 'note', 'label')`,
		func(i int) []any { return []any{zooUUID(i / 4), i % 4} })
	write(100, "UPDATE pm_zoo.page_views SET views = views + 1 WHERE page = ?", func(i int) []any { return []any{fmt.Sprintf("/page/%d", i%20)} })
	write(100, `INSERT INTO pm_zoo."Events" ("user id", "a.b", "say ""hi""", "größe") VALUES (?, ?, 'hi', 3)`,
		func(i int) []any { return []any{fmt.Sprintf("user %d", i/5), i % 5} })
	write(100, "INSERT INTO pm_zoo.events (id, payload) VALUES (?, 'lower case')", func(i int) []any { return []any{fmt.Sprint(i)} })
	if has("audit") {
		write(100, "INSERT INTO pm_zoo.audit (id, what) VALUES (?, 'audited')", func(i int) []any { return []any{zooUUID(i)} })
	}
	if has("orders") {
		// A random note (400 hex digits, which compress about 2:1) puts
		// ~3.5 MB (~1.8 MB on disk) on every replica of orders_by_paid,
		// past the rule's 1 MiB floor whatever disk_usage's MiB rounding.
		write(zooOrders, "INSERT INTO pm_zoo.orders (id, paid, customer, amount, note) VALUES (?, ?, ?, ?, ?)",
			func(i int) []any {
				return []any{zooUUID(1000 + i), i%2 == 0, fmt.Sprintf("customer-%05d", i%5000), i % 500, randomHex(200)}
			})
	}
	if has("embedding") {
		write(50, "UPDATE pm_zoo.everything SET embedding = [0.1, 0.2, ?] WHERE id = ? AND seq = 0",
			func(i int) []any { return []any{float32(i) / 50, zooUUID(i)} })
	}
	for _, w := range writes {
		err := runJobs(ctx, w.n, 8, func(i int) error {
			return execRetry("writing the zoo", func() error { return s.Query(w.stmt, w.args(i)...).WithContext(ctx).Exec() })
		})
		if err != nil {
			return err
		}
	}
	if err := readZoo(ctx, s, has("orders")); err != nil {
		return err
	}
	for _, args := range [][]string{{"flush", testcluster.ZooKeyspace}, {"refreshsizeestimates"}} {
		if err := onEveryNode(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

// readZoo reads each table by its key: every row of the zoo's tables, a
// page of each view's partitions.
func readZoo(ctx context.Context, s *gocql.Session, views bool) error {
	reads := []struct {
		stmt string
		args func(i int) []any
	}{
		{"SELECT * FROM pm_zoo.everything WHERE id = ?", func(i int) []any { return []any{zooUUID(i % 50)} }},
		{"SELECT * FROM pm_zoo.page_views WHERE page = ?", func(i int) []any { return []any{fmt.Sprintf("/page/%d", i%20)} }},
		{`SELECT * FROM pm_zoo."Events" WHERE "user id" = ?`, func(i int) []any { return []any{fmt.Sprintf("user %d", i%20)} }},
		{"SELECT * FROM pm_zoo.events WHERE id = ?", func(i int) []any { return []any{fmt.Sprint(i % 100)} }},
	}
	if views {
		reads = append(reads,
			struct {
				stmt string
				args func(i int) []any
			}{"SELECT id FROM pm_zoo.orders_by_customer WHERE customer = ?", func(i int) []any { return []any{fmt.Sprintf("customer-%05d", i)} }},
			struct {
				stmt string
				args func(i int) []any
			}{"SELECT id FROM pm_zoo.orders_by_paid WHERE paid = ? LIMIT 10", func(i int) []any { return []any{i%2 == 0} }})
	}
	for _, r := range reads {
		err := runJobs(ctx, 200, 4, func(i int) error {
			return execRetry("reading the zoo", func() error { return s.Query(r.stmt, r.args(i)...).WithContext(ctx).Iter().Close() })
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// writeZooTruth reads back where the planted problem sits and writes the truth.
func writeZooTruth(ctx context.Context, truth *testcluster.ZooTruth) error {
	ks := testcluster.ZooKeyspace
	for name := range truth.Objects {
		switch name {
		case ks + ".orders_by_paid", ks + ".orders_by_customer":
			truth.Views[name] = "orders"
		}
	}
	silent := []string{"everything", "page_views", "Events", "events", "audit", "orders", "orders_by_customer"}
	for _, t := range silent {
		if _, ok := truth.Objects[ks+"."+t]; ok {
			truth.Silent = append(truth.Silent, ks+"."+t)
		}
	}
	truth.Problems = []testcluster.Problem{}
	if _, ok := truth.Views[ks+".orders_by_paid"]; ok {
		var nodes []string
		for _, paid := range []string{"true", "false"} {
			n, err := endpoints(ctx, ks, "orders_by_paid", paid)
			if err != nil {
				return err
			}
			nodes = union(nodes, n)
		}
		truth.Problems = append(truth.Problems, testcluster.Problem{Kind: kindLowCardinality, Keyspace: ks, Table: "orders_by_paid",
			Nodes: nodes, ExpectedPartitions: 2, ExpectedRows: zooOrders,
			Note: "a materialized view of pm_zoo.orders keyed by a boolean: two partitions hold every order"})
	}
	sort.Strings(truth.Silent)
	data, err := json.MarshalIndent(truth, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(testcluster.ZooTruthFile(), data, 0o644); err != nil {
		return err
	}
	logf("zoo: %d objects, %d left out (%v), truth in %s", len(truth.Objects), len(truth.Left), truth.Left, testcluster.ZooTruthFile())
	return nil
}

// zooUUID is the i-th zoo key: stable, so reads find what was written.
func zooUUID(i int) gocql.UUID {
	var u gocql.UUID
	u[6], u[8] = 0x40, 0x80 // version 4, RFC 4122 variant
	u[12], u[13], u[14], u[15] = byte(i>>24), byte(i>>16), byte(i>>8), byte(i)
	return u
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
