// Package configerr says what is wrong with a YAML config file in the
// file's own terms: every problem at once, ordered by line, each at the
// line of the key it is about ("line 4: web.colour: unknown key").
package configerr

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

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

var LinePrefix = regexp.MustCompile(`^line (\d+): `)

// SortByLine orders errors by the line they name; those without one go last.
func SortByLine(errs []error) {
	line := func(err error) int {
		if m := LinePrefix.FindStringSubmatch(err.Error()); m != nil {
			n, _ := strconv.Atoi(m[1])
			return n
		}
		return math.MaxInt
	}
	slices.SortStableFunc(errs, func(a, b error) int { return line(a) - line(b) })
}

var (
	unknownField = regexp.MustCompile(`^line (\d+): field (\S+) not found in type \S+$`)
	// yaml.v3 quotes a scalar (its first 7 characters and "..." past 10)
	// but not a sequence or mapping.
	wrongType = regexp.MustCompile("^line (\\d+): cannot unmarshal !!(\\w+)(?: `(.*)`)? into (\\S+)$")
)

// ExplainTypeError rewrites yaml's "line 4: field colour not found in type
// main.WebConfig" in the file's terms: "line 4: web.colour: unknown key",
// and "line 3: cannot unmarshal !!str `abc` into int" as "line 3:
// collector.port: want a whole number, got "abc"".
func ExplainTypeError(root *yaml.Node, msg string) string {
	if m := wrongType.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return explainWrongType(root, line, m[2], m[3], m[4])
	}
	m := unknownField.FindStringSubmatch(msg)
	if m == nil {
		return msg
	}
	line, _ := strconv.Atoi(m[1])
	path := keyPath(root, line, m[2])
	if path == "" {
		path = m[2]
	}
	return fmt.Sprintf("line %d: %s: unknown key (docs/configuration.md lists every key)", line, path)
}

// explainWrongType names the key whose value on line has the wrong type and
// says what the key wants.
func explainWrongType(root *yaml.Node, line int, tag, shown, goType string) string {
	kind := yaml.ScalarNode
	switch tag {
	case "seq":
		kind = yaml.SequenceNode
	case "map":
		kind = yaml.MappingNode
	}
	prefix := strings.TrimSuffix(shown, "...")
	path := valuePath(root, func(n *yaml.Node) bool {
		return n.Line == line && n.Kind == kind && strings.HasPrefix(n.Value, prefix)
	})
	if path == "" {
		path = "value"
	}
	got := "a " + map[string]string{"seq": "list", "map": "mapping"}[tag]
	if shown != "" {
		got = strconv.Quote(shown)
	}
	return fmt.Sprintf("line %d: %s: want %s, got %s", line, path, wantedForm(goType), got)
}

// wantedForm says in the file's terms what a Go type reads from YAML.
func wantedForm(goType string) string {
	switch {
	case goType == "time.Duration":
		return "a duration such as 30s, 5m or 1h"
	case strings.HasPrefix(goType, "int") || strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a string"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	}
	return "a mapping of keys"
}

// valuePath is the dotted path ("collector.port", "web.listen_addresses[1]")
// of the deepest value that is, "" if none.
func valuePath(n *yaml.Node, is func(*yaml.Node) bool) string {
	switch n.Kind {
	case yaml.DocumentNode:
		for _, c := range n.Content {
			if p := valuePath(c, is); p != "" {
				return p
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			if p := valuePath(c, is); p != "" {
				return fmt.Sprintf("[%d].%s", i, p)
			}
			if is(c) {
				return fmt.Sprintf("[%d]", i)
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if p := valuePath(v, is); p != "" {
				return strings.Replace(k.Value+"."+p, ".[", "[", 1)
			}
			if is(v) {
				return k.Value
			}
		}
	}
	return ""
}

// keyPath is the dotted path of the mapping key named key on line, "" if none.
func keyPath(n *yaml.Node, line int, key string) string {
	if n == nil {
		return ""
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for _, c := range n.Content {
			if p := keyPath(c, line, key); p != "" {
				return p
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Line == line && k.Value == key {
				return k.Value
			}
			if p := keyPath(n.Content[i+1], line, key); p != "" {
				return k.Value + "." + p
			}
		}
	}
	return ""
}

func SplitJoined(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

var yamlLinePrefix = regexp.MustCompile(`^yaml: (unmarshal errors:\n\s*)?`)

func CleanYAMLError(err error) string {
	return strings.ReplaceAll(yamlLinePrefix.ReplaceAllString(err.Error(), ""), "\n ", "\n  ")
}

// Locate finds the line of the key an error talks about: the deepest key
// under section whose name the message mentions, else the section itself.
func Locate(root *yaml.Node, section, msg string) int {
	if root == nil || len(root.Content) == 0 {
		return 0
	}
	top := root.Content[0]
	key, val := mapLookup(top, section)
	if key == nil {
		return 0
	}
	// A message that starts with its key's path ("collector.sources.schema.
	// schedule: ...") is at that key: a search by name would find the last
	// of several keys called "schedule".
	if line := pathLine(top, leadingPath.FindString(msg)); line > 0 {
		return line
	}
	best, bestLen := key.Line, 0
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if mentions(msg, k.Value) && len(k.Value) >= bestLen {
					best, bestLen = k.Line, len(k.Value)
				}
				walk(n.Content[i+1])
			}
		}
		if n.Kind == yaml.SequenceNode {
			for _, c := range n.Content {
				walk(c)
			}
		}
	}
	walk(val)
	return best
}

var pathStep = regexp.MustCompile(`[A-Za-z0-9_]+|\[\d+\]`)

var leadingPath = regexp.MustCompile(`^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+|\[\d+\])+`)

// pathLine is the line of the key (or list element) at a dotted path such
// as "collector.sources.schema.schedule" or "collector.hosts[1]", 0 when the
// path has no second step or does not resolve in full.
func pathLine(n *yaml.Node, path string) int {
	steps := pathStep.FindAllString(path, -1)
	if len(steps) < 2 {
		return 0
	}
	line := 0
	for _, s := range steps {
		if strings.HasPrefix(s, "[") {
			i, _ := strconv.Atoi(strings.Trim(s, "[]"))
			if n == nil || n.Kind != yaml.SequenceNode || i >= len(n.Content) {
				return 0
			}
			n = n.Content[i]
			line = n.Line
			continue
		}
		k, v := mapLookup(n, s)
		if k == nil {
			return 0
		}
		n, line = v, k.Line
	}
	return line
}

func mentions(msg, word string) bool {
	if word == "" {
		return false
	}
	re, err := regexp.Compile(`(^|[^a-z0-9_])` + regexp.QuoteMeta(word) + `($|[^a-z0-9_])`)
	return err == nil && re.MatchString(msg)
}

func mapLookup(n *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i], n.Content[i+1]
		}
	}
	return nil, nil
}
