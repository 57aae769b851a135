package web

import (
	"flag"

	"github.com/partmon/partmon/exporter"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

var fixtureBuild = exporter.BuildInfo{Version: "1.2.3", Revision: "abc123", Branch: "main", GoVersion: "go1.26.8",
	GoOS: "linux", GoArch: "amd64", Tags: "unknown"}
