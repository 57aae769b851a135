package web

import (
	"flag"

	"github.com/partmon/partmon/exporter"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var fixtureBuild = exporter.BuildInfo{Version: "1.2.3", Revision: "abc123", GoVersion: "go1.26.8"}
