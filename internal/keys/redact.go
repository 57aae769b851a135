package keys

import (
	"reflect"
	"sync"
)

// Redact and LearnFrom walk any value by reflection, so a field added to the
// report later is covered without anyone remembering to: every string is
// free text to scrub, except the fields that name the schema, the ring and
// partmon itself (identity below), which no key can be.

// identity are field names whose strings are never a partition key: the
// schema's and the ring's names, partmon's own vocabulary. A key that
// happens to equal a table name does not rename the table.
var identity = map[string]bool{
	"Keyspace": true, "Table": true, "Cluster": true, "DC": true, "Rack": true, "Node": true, "Nodes": true,
	"HostID": true, "Address": true, "Kind": true, "Kinds": true, "Unit": true, "Severity": true,
	"Engine": true, "Version": true, "Source": true, "State": true, "Op": true, "Type": true, "Partitioner": true,
	"Thresholds": true, "Where": true,
}

// isName: f is an identity field holding names only (a string, or a list
// of them). An identity name on a struct (a heat map's Nodes, each with
// free-text notes) is walked like any other field.
func isName(f reflect.StructField) bool {
	if !identity[f.Name] {
		return false
	}
	t := f.Type
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array {
		t = t.Elem()
	}
	return t.Kind() == reflect.String
}

// keyFields hold a partition key and nothing else.
var keyFields = map[string]bool{"Key": true, "PartitionKey": true}

// Redact returns a copy of v in which every string shows keys as k does:
// a key field (Key, PartitionKey) by Show, an ID field by ID, any other
// string scrubbed of learned keys. v itself is not changed; in plain mode
// v is returned as it is. The parts of v whose type holds no string that
// can show a key (a report's 300,000 table figures: numbers and names) are
// shared with v, not copied: like the plain report, neither side may
// change after (publish.Latest's rule for a published report).
func Redact[T any](k *Keyer, v T) T {
	if !k.Hides() {
		return v
	}
	w := walker{k: k, shown: map[string]string{}, ids: map[string]string{}, scrubbed: map[string]string{}}
	rv := reflect.ValueOf(&v).Elem()
	return w.copy(rv, showsKey.plan(rv.Type(), "")).Interface().(T)
}

type walker struct {
	k *Keyer
	// shown, ids and scrubbed memoise Show, ID and Scrub over one Redact:
	// a report names a key, and repeats its summaries, sources and notes,
	// many times (Show and ID are an HMAC each).
	shown, ids, scrubbed map[string]string
}

// copy is v with what p walks redacted; v itself when p is nil.
func (w walker) copy(v reflect.Value, p *walkPlan) reflect.Value {
	if p == nil {
		return v // nothing in it changes: shared
	}
	switch p.kind {
	case reflect.String:
		return w.str(v, p.field)
	case reflect.Pointer:
		if v.IsNil() || p.elem == nil {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(w.copy(v.Elem(), p.elem))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v) // unexported fields, and those that show no key, as they are
		for _, f := range p.fields {
			out.Field(f.index).Set(w.copy(v.Field(f.index), f.plan))
		}
		return out
	case reflect.Slice:
		if v.IsNil() || p.elem == nil {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(w.copy(v.Index(i), p.elem))
		}
		return out
	case reflect.Array:
		if p.elem == nil {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(w.copy(v.Index(i), p.elem))
		}
		return out
	case reflect.Map:
		if v.IsNil() || p.elem == nil {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			// Map keys name tables and nodes (model.TableKey, host IDs), never a
			// partition: a partition key equal to a keyspace's name must not
			// rename the keyspace's tables.
			out.SetMapIndex(it.Key(), w.copy(it.Value(), p.elem))
		}
		return out
	}
	return v
}

func (w walker) str(v reflect.Value, field string) reflect.Value {
	s := v.String()
	var shown string
	switch {
	case identity[field]:
		return v
	case keyFields[field]:
		shown = memo(w.shown, s, w.k.Show)
	case field == "ID":
		shown = memo(w.ids, s, w.k.ID)
	default:
		shown = memo(w.scrubbed, s, w.k.Scrub)
	}
	out := reflect.New(v.Type()).Elem()
	out.SetString(shown)
	return out
}

func memo(seen map[string]string, s string, f func(string) string) string {
	out, ok := seen[s]
	if !ok {
		out = f(s)
		seen[s] = out
	}
	return out
}

// LearnFrom learns every key in v: the strings of its Key and PartitionKey
// fields, at any depth.
func LearnFrom(k *Keyer, v any) {
	if !k.Hides() {
		return
	}
	rv := reflect.ValueOf(v)
	if !rv.IsValid() {
		return
	}
	var found []string
	collect(rv, holdsKey.plan(rv.Type(), ""), &found)
	k.Learn(found...)
}

func collect(v reflect.Value, p *walkPlan, found *[]string) {
	if p == nil {
		return // a snapshot's 300,000 table figures hold no key: not walked
	}
	switch p.kind {
	case reflect.String:
		if keyFields[p.field] {
			*found = append(*found, v.String())
		}
	case reflect.Pointer:
		if !v.IsNil() {
			collect(v.Elem(), p.elem, found)
		}
	case reflect.Interface:
		if !v.IsNil() {
			e := v.Elem()
			collect(e, holdsKey.plan(e.Type(), p.field), found)
		}
	case reflect.Struct:
		for _, f := range p.fields {
			collect(v.Field(f.index), f.plan, found)
		}
	case reflect.Slice, reflect.Array:
		if p.elem != nil {
			for i := 0; i < v.Len(); i++ {
				collect(v.Index(i), p.elem, found)
			}
		}
	case reflect.Map:
		if p.elem != nil {
			it := v.MapRange()
			for it.Next() {
				collect(it.Value(), p.elem, found)
			}
		}
	}
}

type typeField struct {
	t     reflect.Type
	field string
}

// typeSearch decides, once per (type, field name), whether a value of the
// type reached through the field can hold a string that str accepts (an
// interface may hold anything).
type typeSearch struct {
	str   func(field string) bool
	cache sync.Map

	mu    sync.Mutex
	plans map[typeField]*walkPlan
}

// walkPlan is how a value of one type reached through one field is
// walked: which fields of a struct, and the element of a pointer, slice,
// array or map, may hold what the search looks for; nil when nothing in
// it may. Decided once per type, so that walking a value looks nothing up.
type walkPlan struct {
	kind   reflect.Kind
	field  string      // the name it is reached through: a string's role
	elem   *walkPlan   // a pointer's, slice's, array's or map's element
	fields []fieldPlan // a struct's fields to walk
}

type fieldPlan struct {
	index int
	plan  *walkPlan
}

// plan is the walk of a value of type t reached through field.
func (s *typeSearch) plan(t reflect.Type, field string) *walkPlan {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.plans == nil {
		s.plans = map[typeField]*walkPlan{}
	}
	return s.build(t, field)
}

func (s *typeSearch) build(t reflect.Type, field string) *walkPlan {
	tf := typeField{t, field}
	if p, ok := s.plans[tf]; ok {
		return p
	}
	if !s.may(t, field) {
		s.plans[tf] = nil
		return nil
	}
	p := &walkPlan{kind: t.Kind(), field: field}
	s.plans[tf] = p // a recursive type finds it while it is built
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		p.elem = s.build(t.Elem(), field)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && !isName(f) {
				name := f.Name
				if f.Anonymous {
					name = field
				}
				if fp := s.build(f.Type, name); fp != nil {
					p.fields = append(p.fields, fieldPlan{i, fp})
				}
			}
		}
	}
	return p
}

func (s *typeSearch) may(t reflect.Type, field string) bool {
	tf := typeField{t, field}
	if v, ok := s.cache.Load(tf); ok {
		return v.(bool)
	}
	s.cache.Store(tf, true) // a recursive type: assume yes while deciding
	var out bool
	switch t.Kind() {
	case reflect.String:
		out = s.str(field)
	case reflect.Interface:
		out = true
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		out = s.may(t.Elem(), field)
	case reflect.Struct:
		for i := 0; i < t.NumField() && !out; i++ {
			if f := t.Field(i); f.IsExported() && !isName(f) {
				name := f.Name
				if f.Anonymous {
					name = field
				}
				out = s.may(f.Type, name)
			}
		}
	}
	s.cache.Store(tf, out)
	return out
}

var (
	// holdsKey: a key field's string (LearnFrom walks only there).
	holdsKey = &typeSearch{str: func(field string) bool { return keyFields[field] }}
	// showsKey: a string Redact may change, anything but a name: a key
	// field, an ID, or free text that may quote a key.
	showsKey = &typeSearch{str: func(field string) bool { return !identity[field] }}
)
