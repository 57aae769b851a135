package collector

import (
	"reflect"
	"slices"
)

// listRule says what a list a source read does to the merged list.
type listRule bool

const (
	// replaceLists: one source reads the whole list (the ring's nodes, the
	// schema's keyspaces), so the last one read is the list.
	replaceLists listRule = false
	// appendLists: several sources add entries to a node's list (samplers,
	// large-partition tables, the log).
	appendLists listRule = true
)

// mergeFields copies into *dst every field *src set, that is every exported
// field that is not its type's zero (a nil list or map, 0, "", a zero
// struct), as a deep copy; a list is appended or replaced by lists. skip
// names the fields the collector fills itself. So a field a new source adds
// to the model is merged without a line here.
func mergeFields[T any](dst, src *T, lists listRule, skip ...string) {
	d, s := reflect.ValueOf(dst).Elem(), reflect.ValueOf(src).Elem()
	for i := range s.NumField() {
		f := s.Type().Field(i)
		v := s.Field(i)
		if !f.IsExported() || v.IsZero() || slices.Contains(skip, f.Name) {
			continue
		}
		if v.Kind() == reflect.Slice && lists == appendLists {
			d.Field(i).Set(reflect.AppendSlice(d.Field(i), deepCopy(v)))
			continue
		}
		d.Field(i).Set(deepCopy(v))
	}
}

// deepCopy is v with every list, map and pointer in it copied, so the
// merged snapshot shares no memory with what the sources read.
func deepCopy(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(deepCopy(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), deepCopy(it.Value()))
		}
		return out
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(deepCopy(v.Elem()))
		return out
	case reflect.Struct:
		out := reflect.New(v.Type()).Elem()
		out.Set(v) // unexported fields (a time.Time's) as they are
		for i := range v.NumField() {
			if out.Field(i).CanSet() {
				out.Field(i).Set(deepCopy(v.Field(i)))
			}
		}
		return out
	}
	return v
}
