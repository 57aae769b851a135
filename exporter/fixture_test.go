package exporter

var fixtureBuild = BuildInfo{Version: "1.2.3", Revision: "abc123", GoVersion: "go1.26.8"}
