package exporter

var fixtureBuild = BuildInfo{Version: "1.2.3", Revision: "abc123", Branch: "main", GoVersion: "go1.26.8",
	GoOS: "linux", GoArch: "amd64", Tags: "unknown"}
