package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/partmon/partmon/collector"
)

const (
	beginPrefix = "<!-- BEGIN GENERATED: "
	command     = "go generate ./tools/cmd/docgen"
)

var beginLine = regexp.MustCompile(`(?m)^([ \t]*)<!-- BEGIN GENERATED: ([a-z-]+)[^\n]*-->[ \t]*\n`)

// renderers make each region's text from the declarations; old is the
// region's text as it stands, for the regions that keep a column of prose
// written in the doc (the thresholds' meanings).
var renderers = map[string]func(old string) (string, error){
	"sources":      func(string) (string, error) { return sourcesTable(collector.Declarations()), nil },
	"source-index": func(string) (string, error) { return sourceIndexTable(collector.Declarations()), nil },
	"grants":       func(string) (string, error) { return grantBlock(collector.Grants(), false), nil },
	"role-grants":  func(string) (string, error) { return grantBlock(collector.Grants(), true), nil },
	"kinds":        func(string) (string, error) { return kindsTable(), nil },
	"thresholds":   thresholdsTable,
}

// rewrite replaces the inside of every region of text with its render,
// indented as its BEGIN marker is.
func rewrite(text string) (string, error) {
	var b strings.Builder
	for {
		m := beginLine.FindStringSubmatchIndex(text)
		if m == nil {
			b.WriteString(text)
			return b.String(), nil
		}
		indent, name := text[m[2]:m[3]], text[m[4]:m[5]]
		render, ok := renderers[name]
		if !ok {
			return "", fmt.Errorf("no generated region %q (docgen knows %s)", name, strings.Join(regionNames(), ", "))
		}
		end := regexp.MustCompile(`(?m)^[ \t]*<!-- END GENERATED: ` + regexp.QuoteMeta(name) + ` -->`)
		e := end.FindStringIndex(text[m[1]:])
		if e == nil {
			return "", fmt.Errorf("region %q has no <!-- END GENERATED: %s --> line", name, name)
		}
		old := dedent(text[m[1]:m[1]+e[0]], indent)
		body, err := render(old)
		if err != nil {
			return "", fmt.Errorf("region %q: %w", name, err)
		}
		b.WriteString(text[:m[0]])
		b.WriteString(indent + beginPrefix + name + "; " + command + " -->\n")
		b.WriteString(indentLines(body, indent))
		text = text[m[1]+e[0]:]
	}
}

func regionNames() []string {
	var out []string
	for n := range renderers {
		out = append(out, n)
	}
	return sorted(out)
}

func indentLines(body, indent string) string {
	if indent == "" {
		return body
	}
	lines := strings.SplitAfter(body, "\n")
	for i, l := range lines {
		if l != "" && l != "\n" {
			lines[i] = indent + l
		}
	}
	return strings.Join(lines, "")
}

func dedent(body, indent string) string {
	if indent == "" {
		return body
	}
	lines := strings.SplitAfter(body, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimPrefix(l, indent)
	}
	return strings.Join(lines, "")
}
