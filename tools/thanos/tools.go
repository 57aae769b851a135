//go:build tools

// Package tools names the command this module exists to build.
package tools

import _ "github.com/thanos-io/thanos/cmd/thanos"
