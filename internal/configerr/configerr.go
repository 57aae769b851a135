// Package configerr says what is wrong with a YAML config file in the
// file's own terms: every problem at once, ordered by line, each at the
// line of the key it is about ("line 4: web.colour: unknown key").
//
// One style for every section: a validator returns Field errors that name
// the value by its YAML path ("collector.sources.schema.schedule",
// "web.listen_addresses[1]"), joined; Under places a section's relative
// paths under the section's own. The line comes from the parsed document
// (Doc), never from an error's text: Parse keeps the line of every path,
// Decode walks the nodes against the Go type to find unknown keys,
// duplicate keys and values of the wrong type, and Report gives each
// problem the line of its path.
package configerr

import (
	"errors"
	"fmt"
	"strings"
)

// Problem is one thing wrong with a config: the value at Path and what is
// wrong with it.
type Problem struct {
	// Path is the value's YAML path; "" for the file as a whole.
	Path string
	// Line is the line of Path's key (or list item) in the file, 0 when
	// the file does not give the value (a default, a flag).
	Line int
	// Msg says what is wrong and what to check, on one line.
	Msg string
}

func (p *Problem) Error() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", p.Line)
	}
	if p.Path != "" {
		b.WriteString(p.Path + ": ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// ConfigField makes a Problem a Pathed error.
func (p *Problem) ConfigField() (path, msg string) { return p.Path, p.Msg }

// Pathed is an error about one config value, named by its YAML path. A
// package that must not import configerr (one of the standard library
// alone) returns its own type with this method; every other returns Field.
type Pathed interface {
	error
	ConfigField() (path, msg string)
}

// Field is the problem with the value at path, the message formatted.
func Field(path, format string, a ...any) error {
	return &Problem{Path: path, Msg: fmt.Sprintf(format, a...)}
}

// Under places the problems of a section's validator, whose paths are
// relative to the section (a threshold's key under "thresholds"), under
// prefix; an error without a path is about the section itself. Joined
// errors come back joined, nil stays nil.
func Under(prefix string, err error) error {
	var out []error
	for _, e := range Split(err) {
		path, msg := "", e.Error()
		line := 0
		var p Pathed
		if errors.As(e, &p) {
			path, msg = p.ConfigField()
			var pr *Problem
			if errors.As(e, &pr) {
				line = pr.Line
			}
		}
		out = append(out, &Problem{Path: JoinPath(prefix, path), Line: line, Msg: msg})
	}
	return errors.Join(out...)
}

// JoinPath appends a relative path to a prefix: "collector" and "port" are
// "collector.port", "web.listen_addresses" and "[1]" are
// "web.listen_addresses[1]".
func JoinPath(prefix, path string) string {
	switch {
	case prefix == "":
		return path
	case path == "":
		return prefix
	case strings.HasPrefix(path, "["):
		return prefix + path
	}
	return prefix + "." + path
}

// Split lists the errors of err, errors.Join's flattened; nil is none.
func Split(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, Split(e)...)
		}
		return out
	}
	return []error{err}
}

// Error is every problem found in one config file, one per line.
type Error struct {
	File string
	Errs []error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("invalid config")
	if e.File != "" {
		b.WriteString(" " + e.File)
	}
	if len(e.Errs) > 1 {
		fmt.Fprintf(&b, " (%d errors)", len(e.Errs))
	}
	b.WriteString(":")
	for _, err := range e.Errs {
		b.WriteString("\n  " + strings.ReplaceAll(err.Error(), "\n", "\n    "))
	}
	return b.String()
}

func (e *Error) Unwrap() []error { return e.Errs }
