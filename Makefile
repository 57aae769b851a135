# partmon — see README.md. `make demo` and `make test` do all their own set-up.
GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION  ?= $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
LDFLAGS   := -X github.com/prometheus/common/version.Version=$(VERSION) -X github.com/prometheus/common/version.Revision=$(REVISION) -X github.com/prometheus/common/version.Branch=main
CLUSTER   := deploy/local/cluster
FIXTURES  := deploy/local/fixtures
# golangci-lint, built by make lint from tools/lint (see the rule below lint).
GOLANGCI_LINT := bin/golangci-lint

.PHONY: all build test unit integration lint demo demo-down bench scale faults truth truth-rings truth-guardrails truth-advise clean compose-test

all: build

build:
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/partmon ./cmd/partmon

## test: everything — lint, unit tests, promtool, then integration and end-to-end
## tests against a real 3-node Cassandra cluster that it starts and stops itself.
test: build
	scripts/test-all.sh

## unit: the tests that need no cluster (fuzz seed corpora included).
unit:
	$(GO) test -count=1 ./...

## lint: gofmt, go vet, then golangci-lint with .golangci.yml; any finding fails.
lint: $(GOLANGCI_LINT)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags integration ./...
	$(GOLANGCI_LINT) run ./...
	cd deploy/kubernetes/manifestcheck && $(CURDIR)/$(GOLANGCI_LINT) run ./...

# golangci-lint at the version tools/lint/go.mod pins, built from its Go module
# (a module of its own, so the linters' dependencies stay out of partmon's
# go.sum), rebuilt when that module changes. The first build compiles ~1,200
# packages (about 5 CPU-minutes); later builds come from the Go build cache.
$(GOLANGCI_LINT): tools/lint/go.mod tools/lint/go.sum
	cd tools/lint && $(GO) build -o $(CURDIR)/$@ github.com/golangci/golangci-lint/v2/cmd/golangci-lint

## demo: a local real cluster with planted problems, partmon watching it on http://127.0.0.1:9808/
demo: build
	scripts/demo.sh

demo-down:
	$(CLUSTER) down

bench: build
	scripts/bench.sh

## compose-test: docker-compose.yml run for real on a private dockerd, host network on
## 127.0.0.185-189, images built here from Debian's packages (scripts/compose-test.sh;
## Docker's docker.io and docker-compose packages). Prints SKIPPED without dockerd.
compose-test:
	scripts/compose-test.sh

## scale: a fleet of sidecars (tools/cmd/fleet, partmon's real exporter over a captured
## snapshot) scraped by a Prometheus agent into a remote-write store, the shipped
## rules in vmalert, a real Alertmanager, at 10, 100 and 300 sidecars × 1,000
## tables (docs/scale.md). Not part of make test.
scale:
	scripts/scale.sh

## faults: the reliability suite (docs/operations.md) — node kill/pause/restart,
## partmon restart and SIGTERM, a soak, a read-only role and mutual TLS — on a
## 3-node cluster with --auth --tls --tls-client-auth of its own on 127.0.0.4-6,
## started and stopped here.
faults:
	scripts/faults.sh

## truth: the truth corpus (tools/truth/scenarios) on real clusters of its own (127.0.0.61-75),
## judged against its truth and nodetool: a confusion table per kind (docs/detection.md).
truth: build
	scripts/truth.sh

## truth-rings: the ring scenarios only (two-DC and heavy rings on 127.0.0.64-70), on 16
## allocated tokens a node and then on 256 random ones, held to nodetool's ownership.
truth-rings: build
	scripts/truth.sh --rings

## truth-guardrails: the guardrail scenarios only, on a 3-node 5.0 cluster started with the
## guardrail levels they set (127.0.0.71-73): each planted crossing held to Cassandra's log line.
truth-guardrails: build
	scripts/truth.sh --guardrails

## truth-advise: the key advisor's truth only (keyadvice/testdata/truth.yaml), on a 5.0 node
## (127.0.0.74) then a 4.1 node (127.0.0.75): each candidate key built for real, held to nodetool.
truth-advise: build
	scripts/truth.sh --advise

clean:
	rm -rf bin
