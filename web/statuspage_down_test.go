package web

import (
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
)

// unreachableReport is a cycle that reached nothing: the first source with
// the connection error, the rest backed off with it as their last error.
func unreachableReport() *analyzer.Report {
	const cause = "connecting to 127.0.0.199: gocql: unable to create session: dial tcp 127.0.0.199:9042: connect: connection refused"
	sources := []model.SourceStatus{{Source: "topology", State: model.StateError, Error: cause}}
	for _, s := range []string{"schema", "size_estimates", "max_partition_size", "local_read_latency", "settings"} {
		sources = append(sources, model.SourceStatus{Source: s, Node: "127.0.0.199", State: model.StateError,
			Error: "backing off: node 127.0.0.199 failed 1 times in a row, next attempt in 5s; " + lastErrorMark + cause})
	}
	sources = append(sources, model.SourceStatus{Source: "nodetool_sampler", Node: "127.0.0.199", State: model.StateDisabled})
	return &analyzer.Report{Generated: time.Now(), Sources: sources}
}

// TestStatusPageCannotReachDatabase: one banner names the cause once,
// instead of a row per source repeating it.
func TestStatusPageCannotReachDatabase(t *testing.T) {
	latest := &publish.Latest{}
	e := exporter.New(latest, exporter.Options{})
	latest.Publish(unreachableReport())
	page := get(t, newTestHandler(t, latest, e, nil).URL+"/").body
	if !strings.Contains(page, "partmon cannot reach the database") {
		t.Fatalf("no banner:\n%s", page)
	}
	if n := strings.Count(page, "connect: connection refused"); n != 1 {
		t.Errorf("the cause appears %d times, want once", n)
	}
	if !strings.Contains(page, "(6 collector reads on 127.0.0.199)") {
		t.Errorf("the banner does not count the failed reads")
	}
	if strings.Contains(page, "<td>max_partition_size</td>") {
		t.Errorf("a row per failed source is still there")
	}
}

// TestPageUnreachableOnlyWhenNothingRead: one source read is enough for the
// ordinary table.
func TestPageUnreachableOnlyWhenNothingRead(t *testing.T) {
	r := unreachableReport()
	r.Sources = append(r.Sources, model.SourceStatus{Source: "gossip_info", Node: "127.0.0.199", State: model.StateOK})
	if d := pageUnreachable(publish.Cycle{Sources: r.Sources}); d != nil {
		t.Errorf("banner with a source that succeeded: %+v", d)
	}
	if d := pageUnreachable(publish.Cycle{Sources: unreachableReport().Sources}); d == nil || len(d.Errors) != 1 {
		t.Errorf("want one cause, got %+v", d)
	}
}
