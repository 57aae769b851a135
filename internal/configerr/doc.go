package configerr

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Doc is one parsed YAML document and the line of each of its paths.
type Doc struct {
	top   *yaml.Node     // the document's value; nil for an empty document
	lines map[string]int // YAML path → line of its key or list item
	nodes budget         // left to index
}

// Parse reads data as one YAML document. A file of comments only, or
// nothing, is an empty document. Its error is a *Problem: a syntax error
// in yaml's own words (yaml gives its line only in that text, passed on
// as it is), or a second document, which would be ignored.
func Parse(data []byte) (*Doc, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var root yaml.Node
	if err := dec.Decode(&root); err != nil {
		if errors.Is(err, io.EOF) {
			return &Doc{lines: map[string]int{}}, nil
		}
		return nil, &Problem{Msg: syntaxMessage(err)}
	}
	var second yaml.Node
	switch err := dec.Decode(&second); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, &Problem{Msg: syntaxMessage(err)}
	default:
		return nil, &Problem{Line: second.Line, Msg: "a second YAML document (after ---): only the first would be read; merge them or remove the separator"}
	}
	d := &Doc{lines: map[string]int{}, nodes: maxNodes}
	if len(root.Content) > 0 && !isNull(root.Content[0]) {
		d.top = root.Content[0]
		d.index(d.top, "")
	}
	return d, nil
}

// syntaxMessage is yaml's message for a syntax error without its "yaml: "
// prefix; it starts with the line when yaml knows it ("line 3: did not
// find expected key").
func syntaxMessage(err error) string {
	return strings.TrimPrefix(err.Error(), "yaml: ")
}

// index records the line of every path under n (at path).
func (d *Doc) index(n *yaml.Node, path string) {
	if !d.nodes.spend() {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		entries, _ := mappingEntries(n, &d.nodes)
		for _, e := range entries {
			p := JoinPath(path, e.key.Value)
			if _, ok := d.lines[p]; !ok {
				d.lines[p] = e.key.Line
			}
			if e.value.Kind != yaml.AliasNode { // its lines are the anchor's
				d.index(e.value, p)
			}
		}
	case yaml.SequenceNode:
		for i, c := range n.Content {
			p := fmt.Sprintf("%s[%d]", path, i)
			d.lines[p] = c.Line
			if c.Kind != yaml.AliasNode {
				d.index(c, p)
			}
		}
	}
}

// Line is the line of path's key in the file, or of its nearest ancestor
// the file gives ("collector" for a missing "collector.hosts"), 0 if none.
func (d *Doc) Line(path string) int {
	if d == nil {
		return 0
	}
	for path != "" {
		if l, ok := d.lines[path]; ok {
			return l
		}
		path = parent(path)
	}
	return 0
}

// parent drops a path's last step: "a.b[2]" is "a.b", "a.b" is "a".
func parent(path string) string {
	i := strings.LastIndexAny(path, ".[")
	if i < 0 {
		return ""
	}
	return path[:i]
}

// Report is errs as the file's problems, each at the line of its path,
// ordered by line (those without one last, in their order); nil when errs
// holds none. Errors without a path (Pathed) are about the file as a whole.
// d may be nil: a config of flags and defaults has no lines.
func (d *Doc) Report(file string, errs ...error) error {
	var out []error
	for _, err := range errs {
		for _, e := range Split(err) {
			p := &Problem{Msg: e.Error()}
			var pr *Problem
			var pd Pathed
			if errors.As(e, &pr) {
				cp := *pr
				p = &cp
			} else if errors.As(e, &pd) {
				p.Path, p.Msg = pd.ConfigField()
			}
			if p.Line == 0 {
				p.Line = d.Line(p.Path)
			}
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	key := func(e error) int {
		if p := (*Problem)(nil); errors.As(e, &p) && p.Line > 0 {
			return p.Line
		}
		return int(^uint(0) >> 1)
	}
	slices.SortStableFunc(out, func(a, b error) int { return cmp.Compare(key(a), key(b)) })
	return &Error{File: file, Errs: out}
}
