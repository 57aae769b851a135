package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"
)

// kingpin's own values say "time: invalid duration "abc"" without the
// flag; these name it, so a bad value says what to fix.

type durationFlag struct {
	name string
	into *time.Duration
}

func (d durationFlag) Set(s string) error {
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("--%s: want a duration such as 30s, 5m or 1h, got %q", d.name, s)
	}
	*d.into = v
	return nil
}

func (d durationFlag) String() string { return d.into.String() }

// durationVar registers a duration flag whose errors name it.
func durationVar(cmd *kingpin.CmdClause, name, help, def string, into *time.Duration) {
	cmd.Flag(name, help).Default(def).SetValue(durationFlag{name, into})
}

type enumFlag struct {
	name    string
	allowed []string
	into    *string
}

func (e enumFlag) Set(s string) error {
	if !slices.Contains(e.allowed, s) {
		return fmt.Errorf("--%s: want %s, got %q", e.name, strings.Join(e.allowed, " or "), s)
	}
	*e.into = s
	return nil
}

func (e enumFlag) String() string { return *e.into }

// enumVar registers a flag of one of allowed whose errors name it.
func enumVar(cmd *kingpin.CmdClause, name, help, def string, into *string, allowed ...string) {
	cmd.Flag(name, help).Default(def).SetValue(enumFlag{name, allowed, into})
}

// unknownHelpTopic is the error for `partmon help nosuch`: kingpin prints
// its usage and lets the command succeed.
func unknownHelpTopic(app *kingpin.Application, args []string) error {
	if len(args) < 2 || args[0] != "help" {
		return nil
	}
	if app.GetCommand(args[1]) != nil {
		return nil
	}
	var names []string
	for _, c := range app.Model().Commands {
		if !c.Hidden {
			names = append(names, c.Name)
		}
	}
	return fmt.Errorf("help: no command %q (commands: %s)", args[1], strings.Join(names, ", "))
}

// reservedPath tells whether p is served by something other than /metrics.
func reservedPath(p string) bool {
	return p == "/healthz" || strings.HasPrefix(p, "/readyz") || strings.HasPrefix(p, "/api/")
}
