package cql

import (
	"fmt"
	"time"
)

// Decoder reads the columns of one row, one call per column. The first
// column that is missing from the result, NULL where a value is required, or
// of another type than asked is remembered: every later read returns a zero
// value, and Err says what failed. Opt* reads accept NULL (a zero value).
type Decoder struct {
	row Row
	err error
}

// NewDecoder returns a Decoder of r.
func NewDecoder(r Row) *Decoder { return &Decoder{row: r} }

// Err is the first failed read, nil if every read so far succeeded.
func (d *Decoder) Err() error { return d.err }

// Has says whether the result has the column at all (NULL or not), for
// columns that only some versions have.
func (d *Decoder) Has(col string) bool {
	_, ok := d.row[col]
	return ok
}

// IsNull says whether the result has the column and it is NULL.
func (d *Decoder) IsNull(col string) bool {
	v, ok := d.row[col]
	return ok && v == nil
}

// String reads a non-null text column.
func (d *Decoder) String(col string) string { return get[string](d, col, true, "text") }

// OptString reads a text column that may be null ("" then).
func (d *Decoder) OptString(col string) string { return get[string](d, col, false, "text") }

// Int64 reads a non-null integer column (bigint, int, smallint, tinyint).
func (d *Decoder) Int64(col string) int64 { return d.integer(col, true) }

// OptInt64 reads an integer column that may be null (0 then).
func (d *Decoder) OptInt64(col string) int64 { return d.integer(col, false) }

// Float64 reads a non-null double or float column.
func (d *Decoder) Float64(col string) float64 {
	v, ok := d.value(col, true)
	if !ok {
		return 0
	}
	switch f := v.(type) {
	case float64:
		return f
	case float32:
		return float64(f)
	}
	d.wrongType(col, "a double", v)
	return 0
}

// OptTime reads a timestamp column that may be null (zero time then), in UTC.
func (d *Decoder) OptTime(col string) time.Time {
	return get[time.Time](d, col, false, "a timestamp").UTC()
}

// OptStrings reads a set<text> or list<text> column that may be null.
func (d *Decoder) OptStrings(col string) []string {
	return get[[]string](d, col, false, "a set of text")
}

// OptStringMap reads a map<text,text> column that may be null.
func (d *Decoder) OptStringMap(col string) map[string]string {
	return get[map[string]string](d, col, false, "a map of text to text")
}

// KeyCount is one (text, bigint) tuple of a list<tuple<text,bigint>>.
type KeyCount struct {
	Key   string
	Value int64
}

// OptKeyCounts reads a list<tuple<text,bigint>> column that may be null.
func (d *Decoder) OptKeyCounts(col string) []KeyCount {
	list := get[[][]any](d, col, false, "a list of (text, bigint) tuples")
	if d.err != nil || list == nil {
		return nil
	}
	out := make([]KeyCount, 0, len(list))
	for i, tup := range list {
		if len(tup) != 2 {
			d.err = fmt.Errorf("column %q element %d: want 2 tuple fields, got %d", col, i, len(tup))
			return nil
		}
		k, ok := tup[0].(string)
		if !ok {
			d.err = fmt.Errorf("column %q element %d: want a text key, got %T", col, i, tup[0])
			return nil
		}
		n, ok := tup[1].(int64)
		if !ok {
			d.err = fmt.Errorf("column %q element %d: want a bigint value, got %T", col, i, tup[1])
			return nil
		}
		out = append(out, KeyCount{Key: k, Value: n})
	}
	return out
}

// value is the column's non-null value; ok is false after an earlier
// failure, for a missing column and for NULL (a failure when required).
func (d *Decoder) value(col string, required bool) (v any, ok bool) {
	if d.err != nil {
		return nil, false
	}
	v, ok = d.row[col]
	if !ok {
		d.err = fmt.Errorf("column %q missing from result", col)
		return nil, false
	}
	if v == nil {
		if required {
			d.err = fmt.Errorf("column %q is null", col)
		}
		return nil, false
	}
	return v, true
}

func (d *Decoder) wrongType(col, want string, v any) {
	d.err = fmt.Errorf("column %q: want %s, got %T", col, want, v)
}

// get reads a column whose Go type is T (see Row).
func get[T any](d *Decoder, col string, required bool, want string) T {
	var zero T
	v, ok := d.value(col, required)
	if !ok {
		return zero
	}
	t, ok := v.(T)
	if !ok {
		d.wrongType(col, want, v)
		return zero
	}
	return t
}

func (d *Decoder) integer(col string, required bool) int64 {
	v, ok := d.value(col, required)
	if !ok {
		return 0
	}
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case int32:
		return int64(n)
	case int16:
		return int64(n)
	case int8:
		return int64(n)
	}
	d.wrongType(col, "an integer", v)
	return 0
}
