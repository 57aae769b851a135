package web

import (
	"bytes"
	"encoding"
	"encoding/json"
	"io"
	"reflect"
	"strings"
)

// writeCompactJSON writes v as json.Marshal does, then a newline, without
// holding the whole text at once: a struct's slice fields are encoded a
// chunk of elements at a time (the report's 300,000 table nodes are most of
// its bytes). Anything else is encoded whole by encoding/json; what this
// writes is held byte for byte to json.Marshal's (TestWriteCompactJSON).
func writeCompactJSON(w io.Writer, v any) error {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() && !marshals(rv.Type()) {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct || marshals(rv.Type()) || !plainFields(rv.Type()) {
		return writeMarshalled(w, v, "\n")
	}
	t := rv.Type()
	sep := "{"
	for i := range t.NumField() {
		f := t.Field(i)
		name, omitEmpty, ok := jsonField(f)
		if !ok || (omitEmpty && emptyJSON(rv.Field(i))) {
			continue
		}
		key, _ := json.Marshal(name) // a string: no error
		if _, err := io.WriteString(w, sep+string(key)+":"); err != nil {
			return err
		}
		sep = ","
		if err := writeValue(w, rv.Field(i)); err != nil {
			return err
		}
	}
	if sep == "{" {
		_, err := io.WriteString(w, "{}\n")
		return err
	}
	_, err := io.WriteString(w, "}\n")
	return err
}

// chunk is how many slice elements are encoded at once.
const chunk = 512

// writeValue writes one field's value: a slice of chunkable elements a
// chunk at a time, anything else whole.
func writeValue(w io.Writer, v reflect.Value) error {
	if v.Kind() != reflect.Slice || v.IsNil() || v.Len() <= chunk || marshals(v.Type()) || v.Type().Elem().Kind() == reflect.Uint8 {
		if v.CanAddr() { // a field reached through a pointer: its pointer methods count, as in json.Marshal
			v = v.Addr()
		}
		return writeMarshalled(w, v.Interface(), "")
	}
	for i := 0; i < v.Len(); i += chunk {
		b, err := json.Marshal(v.Slice(i, min(i+chunk, v.Len())).Interface())
		if err != nil {
			return err
		}
		open, close := ",", ""
		if i == 0 {
			open = "["
		}
		if i+chunk >= v.Len() {
			close = "]"
		}
		if _, err := io.WriteString(w, open); err != nil {
			return err
		}
		if _, err := w.Write(b[1 : len(b)-1]); err != nil {
			return err
		}
		if _, err := io.WriteString(w, close); err != nil {
			return err
		}
	}
	return nil
}

func writeMarshalled(w io.Writer, v any, end string) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := w.Write(b); err != nil {
		return err
	}
	_, err = io.WriteString(w, end)
	return err
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// marshals: t (or *t) encodes itself, which this file does not take apart.
func marshals(t reflect.Type) bool {
	for _, m := range []reflect.Type{jsonMarshaler, textMarshaler} {
		if t.Implements(m) || reflect.PointerTo(t).Implements(m) {
			return true
		}
	}
	return false
}

// plainFields: t embeds no struct and has no field tagged ",string", the
// two cases where a field's JSON is not the field encoded alone.
func plainFields(t reflect.Type) bool {
	for i := range t.NumField() {
		f := t.Field(i)
		if _, opts, _ := strings.Cut(f.Tag.Get("json"), ","); f.Anonymous || strings.Contains(","+opts+",", ",string,") {
			return false
		}
	}
	return true
}

// jsonField reads a field's json tag as encoding/json does: its name,
// omitempty, and false for a field left out (unexported, "-").
func jsonField(f reflect.StructField) (name string, omitEmpty, ok bool) {
	if !f.IsExported() {
		return "", false, false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	for o := range strings.SplitSeq(opts, ",") {
		omitEmpty = omitEmpty || o == "omitempty"
	}
	return name, omitEmpty, true
}

// emptyJSON is encoding/json's isEmptyValue (what omitempty leaves out).
func emptyJSON(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64,
		reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// sizedBuffer is a bytes.Buffer grown once to the size the last body of
// its kind had, so that a large body is not copied through every doubling.
func sizedBuffer(last int) *bytes.Buffer {
	var b bytes.Buffer
	if last > 0 {
		b.Grow(last + last/8)
	}
	return &b
}
