// Package e2e runs partmon end to end against the real local Cassandra
// cluster (deploy/local/cluster with the fixtures of deploy/local/fixtures),
// build tag integration:
//
//   - TestEndToEnd: the real binary in cluster mode, scraped by a real
//     Prometheus that evaluates the shipped alerting rules and sends to a real
//     Alertmanager, to which partmon also pushes its own key-level alerts;
//     every rule and dashboard query on the real data; a headless Chromium
//     screenshot of the status page; a pushed alert resolved after DROP
//     KEYSPACE; and Alertmanager killed while a finding is active and started
//     again on the same address, which then receives the alert from the same
//     partmon process.
//   - TestSidecars: README's main way, one sidecar per node, scraped by one
//     real Prometheus with the shipped scrape configuration and rules: each
//     problem alerts once, each series and dashboard row comes from one
//     sidecar, and killing one sidecar loses only its node's series.
//
// Every process listens on a loopback port picked at runtime, every wait is
// bounded, and everything is killed when the test ends; on failure each
// process's output is saved under test-artifacts/e2e/ (test-artifacts/e2e-sidecars/).
//
//	PARTMON_CLUSTER_DIR=$PWD/.cluster PARTMON_TEST_HOSTS=127.0.0.1,127.0.0.2,127.0.0.3 \
//	  go test -count=1 -tags integration -p 1 ./e2e/ -v
package e2e
