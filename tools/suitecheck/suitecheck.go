// Package suitecheck checks partmon's test suite itself, from its sources and
// scripts, in the unit step: every integration test (a func TestXxx of a file
// built with the integration tag) is run by `make test` or `make faults` —
// some `go test -tags integration` command of scripts/test-all.sh,
// scripts/faults.sh or what they call runs its package, its -run filter (if
// any) matches it, and every environment variable the test skips without is
// set for that command; and every fuzz target has a committed seed corpus.
package suitecheck
