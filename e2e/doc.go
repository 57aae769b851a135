// Package e2e runs partmon end to end (e2e_integration_test.go, build tag
// integration): the real binary in cluster mode against the real local
// Cassandra cluster (deploy/local/cluster with the fixtures of
// deploy/local/fixtures), scraped by a real Prometheus that evaluates the
// shipped alerting rules and sends to a real Alertmanager, to which partmon
// also pushes its own key-level alerts; plus a headless Chromium screenshot
// of the status page. Every process listens on a loopback port picked at
// runtime, every wait is bounded, and everything is killed when the test
// ends; on failure each process's output is saved under test-artifacts/e2e/.
//
//	go test -count=1 -tags integration -run . ./e2e/ -v
package e2e
