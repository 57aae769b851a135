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
	return w.copy(reflect.ValueOf(&v).Elem(), "").Interface().(T)
}

type walker struct {
	k *Keyer
	// shown, ids and scrubbed memoise Show, ID and Scrub over one Redact:
	// a report names a key, and repeats its summaries, sources and notes,
	// many times (Show and ID are an HMAC each).
	shown, ids, scrubbed map[string]string
}

func (w walker) copy(v reflect.Value, field string) reflect.Value {
	if !mayShowKey(v.Type(), field) {
		return v // nothing in it changes: shared
	}
	switch v.Kind() {
	case reflect.String:
		return w.str(v, field)
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(w.copy(v.Elem(), field))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v) // unexported fields as they are
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if f.IsExported() && !isName(f) {
				name := f.Name
				if f.Anonymous {
					name = field
				}
				out.Field(i).Set(w.copy(v.Field(i), name))
			}
		}
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(w.copy(v.Index(i), field))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := 0; i < v.Len(); i++ {
			out.Index(i).Set(w.copy(v.Index(i), field))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		it := v.MapRange()
		for it.Next() {
			// Map keys name tables and nodes (model.TableKey, host IDs), never a
			// partition: a partition key equal to a keyspace's name must not
			// rename the keyspace's tables.
			out.SetMapIndex(it.Key(), w.copy(it.Value(), field))
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
	var found []string
	collect(reflect.ValueOf(v), "", &found)
	k.Learn(found...)
}

func collect(v reflect.Value, field string, found *[]string) {
	if !v.IsValid() || !mayHoldKey(v.Type(), field) {
		return // a snapshot's 300,000 table figures hold no key: not walked
	}
	switch v.Kind() {
	case reflect.String:
		if keyFields[field] {
			*found = append(*found, v.String())
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			collect(v.Elem(), field, found)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if f := v.Type().Field(i); f.IsExported() && !isName(f) {
				name := f.Name
				if f.Anonymous {
					name = field
				}
				collect(v.Field(i), name, found)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			collect(v.Index(i), field, found)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			collect(it.Value(), field, found)
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

func mayHoldKey(t reflect.Type, field string) bool { return holdsKey.may(t, field) }
func mayShowKey(t reflect.Type, field string) bool { return showsKey.may(t, field) }
