package configerr

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Decode decodes the document into out, a pointer to a struct holding the
// defaults, and returns every problem of the document's shape, each at
// its path and line: an unknown key (docs names where the keys are listed),
// a key given twice in one mapping, a value of the wrong type, and a number
// with a fraction for a whole number (yaml would truncate it). The rest of
// the document is decoded whatever these are, so validation can report
// its own problems beside them.
func (d *Doc) Decode(out any, docs string) []error {
	if d == nil || d.top == nil {
		return nil
	}
	nodes := budget(maxNodes)
	w := walker{docs: docs, nodes: &nodes}
	w.walk(d.top, reflect.TypeOf(out), "", d.top.Line)
	top := d.top
	if w.duplicates {
		// yaml decodes no part of a mapping with a key given twice.
		top = withoutDuplicates(top)
	}
	err := top.Decode(out)
	var te *yaml.TypeError
	switch {
	case err == nil:
	case !errors.As(err, &te):
		// Not a value's type: yaml stopped (excessive aliasing).
		w.problems = append(w.problems, &Problem{Msg: syntaxMessage(err)})
	case len(w.problems) == 0:
		// The walk mirrors yaml's decoding; whatever yaml still refuses is
		// reported as yaml says it, about the file as a whole.
		for _, msg := range te.Errors {
			w.problems = append(w.problems, &Problem{Msg: msg})
		}
	}
	return w.problems
}

// entry is one key and its value in a mapping.
type entry struct{ key, value *yaml.Node }

// dupKey is a key given twice in one mapping.
type dupKey struct {
	key   *yaml.Node
	first int // the line of its first occurrence
}

// mappingEntries are a mapping's keys and values as yaml reads them: a
// merge key's ("<<: *base") mappings under the keys given explicitly.
func mappingEntries(n *yaml.Node, nodes *budget) ([]entry, []dupKey) {
	var entries []entry
	var dups []dupKey
	at := map[string]int{}
	var merged []*yaml.Node
	for i := 0; i+1 < len(n.Content) && nodes.spend(); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
			merged = append(merged, v)
			continue
		}
		if j, ok := at[k.Value]; ok {
			dups = append(dups, dupKey{key: k, first: entries[j].key.Line})
			continue
		}
		at[k.Value] = len(entries)
		entries = append(entries, entry{k, v})
	}
	for _, m := range merged {
		m = resolve(m)
		sources := []*yaml.Node{m}
		if m.Kind == yaml.SequenceNode {
			sources = m.Content
		}
		for _, s := range sources {
			if s = resolve(s); s.Kind != yaml.MappingNode {
				continue
			}
			inner, _ := mappingEntries(s, nodes)
			for _, e := range inner {
				if _, ok := at[e.key.Value]; !ok {
					at[e.key.Value] = len(entries)
					entries = append(entries, e)
				}
			}
		}
	}
	return entries, dups
}

// withoutDuplicates is a copy of n whose mappings keep the first of keys
// given twice.
func withoutDuplicates(n *yaml.Node) *yaml.Node {
	copies := map[*yaml.Node]*yaml.Node{}
	var clone func(*yaml.Node) *yaml.Node
	clone = func(n *yaml.Node) *yaml.Node {
		if c, ok := copies[n]; ok {
			return c
		}
		c := *n
		copies[n] = &c
		c.Content = nil
		seen := map[string]bool{}
		for i := 0; i < len(n.Content); i++ {
			k := n.Content[i]
			if n.Kind == yaml.MappingNode && i+1 < len(n.Content) && k.ShortTag() != "!!merge" {
				if seen[k.Value] {
					i++ // and its value
					continue
				}
				seen[k.Value] = true
			}
			c.Content = append(c.Content, clone(k))
		}
		if n.Alias != nil {
			c.Alias = clone(n.Alias)
		}
		return &c
	}
	return clone(n)
}

// resolve follows an alias to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	n = resolve(n)
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// walker finds the problems of a document's shape against a Go type.
type walker struct {
	docs       string
	problems   []error
	duplicates bool    // a mapping gives a key twice
	nodes      *budget // left to visit
}

// maxNodes bounds the nodes a walk over one document visits, aliases and
// merge keys expanded: yaml's decoding refuses excessive aliasing ("billion
// laughs"), and a walk must not blow up before it. A config is a few
// hundred nodes; past the bound the walk stops and yaml's decoding alone
// judges the rest.
const maxNodes = 1 << 18

// budget is the nodes a walk has left; each walk stops when it is spent.
type budget int

func (b *budget) spend() bool {
	*b--
	return *b >= 0
}

func (w *walker) add(path string, line int, format string, a ...any) {
	w.problems = append(w.problems, &Problem{Path: path, Line: line, Msg: fmt.Sprintf(format, a...)})
}

var (
	durationType    = reflect.TypeFor[time.Duration]()
	unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()
)

// walk checks node n, the value at path whose key is on line, against t.
func (w *walker) walk(n *yaml.Node, t reflect.Type, path string, line int) {
	if !w.nodes.spend() {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	n = resolve(n)
	if isNull(n) {
		return // yaml leaves the default
	}
	if t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		w.leaf(n, t, path, line)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if !w.kindIs(n, yaml.MappingNode, t, path, line) {
			return
		}
		entries := w.entries(n, path)
		for _, e := range entries {
			p := JoinPath(path, e.key.Value)
			f, ok := yamlField(t, e.key.Value)
			if !ok {
				w.add(p, e.key.Line, "unknown key%s", w.unknownHint(t, e.key.Value))
				continue
			}
			w.walk(e.value, f.Type, p, e.key.Line)
		}
	case reflect.Map:
		if !w.kindIs(n, yaml.MappingNode, t, path, line) {
			return
		}
		for _, e := range w.entries(n, path) {
			p := JoinPath(path, e.key.Value)
			w.leaf(e.key, t.Key(), p, e.key.Line)
			w.walk(e.value, t.Elem(), p, e.key.Line)
		}
	case reflect.Slice, reflect.Array:
		if !w.kindIs(n, yaml.SequenceNode, t, path, line) {
			return
		}
		for i, c := range n.Content {
			w.walk(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), c.Line)
		}
	case reflect.Interface:
		// any value is welcome
	default:
		w.leaf(n, t, path, line)
	}
}

// entries are a mapping's entries, its duplicate keys reported.
func (w *walker) entries(n *yaml.Node, path string) []entry {
	entries, dups := mappingEntries(n, w.nodes)
	for _, d := range dups {
		w.duplicates = true
		w.add(JoinPath(path, d.key.Value), d.key.Line, "given twice in one mapping (first at line %d): keep one", d.first)
	}
	return entries
}

// kindIs says whether n is of kind, and reports it when not.
func (w *walker) kindIs(n *yaml.Node, kind yaml.Kind, t reflect.Type, path string, line int) bool {
	if n.Kind == kind {
		return true
	}
	w.add(path, line, "want %s, got %s", wantedForm(t), shown(n))
	return false
}

// leaf decodes n alone into a value of type t: what fails is this node's
// problem.
func (w *walker) leaf(n *yaml.Node, t reflect.Type, path string, line int) {
	custom := t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType)
	if n.Kind != yaml.ScalarNode && !custom {
		// A list or mapping is never a scalar: no need to decode (and
		// expand) it to know.
		w.add(path, line, "want %s, got %s", wantedForm(t), shown(n))
		return
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		w.add(path, line, "want %s, got %s", wantedForm(t), shown(n))
		return
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		// yaml truncates a float into an integer silently.
		if t != durationType && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!float" {
			w.add(path, line, "want a whole number, got %s", n.Value)
		}
	}
}

// unknownHint says where the known keys are: the nearest known key when
// one is a typo away, and the docs.
func (w *walker) unknownHint(t reflect.Type, key string) string {
	var hints []string
	if near := nearestKey(t, key); near != "" {
		hints = append(hints, "did you mean "+near+"?")
	}
	if w.docs != "" {
		hints = append(hints, w.docs+" lists every key")
	}
	if len(hints) == 0 {
		return ""
	}
	return " (" + strings.Join(hints, " ") + ")"
}

// nearestKey is the key of struct t at most two edits from key, if one.
func nearestKey(t reflect.Type, key string) string {
	best, bestD := "", 3
	for _, k := range yamlKeys(t) {
		if d := editDistance(k, key); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// shown is a node as a message quotes it: a scalar's value (long ones
// cut), else what it is.
func shown(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	v := n.Value
	if r := []rune(v); len(r) > 60 {
		v = string(r[:57]) + "..."
	}
	return strconv.Quote(v)
}

// wantedForm says in the file's terms what a Go type reads from YAML.
func wantedForm(t reflect.Type) string {
	if t == durationType {
		return "a duration such as 30s, 5m or 1h"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "a mapping of keys"
}

// yamlField is the field of struct t that yaml key names, through inlined
// structs, as yaml.v3 names fields (the tag's name, else the lowercased
// field name; "-" never).
func yamlField(t reflect.Type, key string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if name == "-" {
			continue
		}
		if strings.Contains(opts, "inline") {
			if f.Type.Kind() == reflect.Map {
				continue // holds the keys no field names: looked at last
			}
			if g, ok := yamlField(f.Type, key); ok {
				return g, true
			}
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		if name == key {
			return f, true
		}
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if _, opts, _ := strings.Cut(f.Tag.Get("yaml"), ","); f.IsExported() && f.Type.Kind() == reflect.Map && strings.Contains(opts, "inline") {
			return reflect.StructField{Name: key, Type: f.Type.Elem()}, true
		}
	}
	return reflect.StructField{}, false
}

// yamlKeys are the keys struct t reads, through inlined structs.
func yamlKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case name == "-":
		case strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct:
			keys = append(keys, yamlKeys(f.Type)...)
		case strings.Contains(opts, "inline"):
		case name == "":
			keys = append(keys, strings.ToLower(f.Name))
		default:
			keys = append(keys, name)
		}
	}
	return keys
}
