package cql

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"
)

func TestDecoderReads(t *testing.T) {
	at := time.Date(2026, 1, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	row := Row{
		"text": "a", "null": nil, "bigint": int64(-5), "int": 7, "int32": int32(8), "int16": int16(9), "int8": int8(10),
		"double": 1.5, "float": float32(0.25), "ts": at, "set": []string{"x", "y"}, "map": map[string]string{"k": "v"},
		"top": [][]any{{"key", int64(3)}},
	}
	tests := []struct {
		name    string
		read    func(d *Decoder) any
		want    any
		wantErr string
	}{
		{"String", func(d *Decoder) any { return d.String("text") }, "a", ""},
		{"String of NULL", func(d *Decoder) any { return d.String("null") }, "", `column "null" is null`},
		{"String of a missing column", func(d *Decoder) any { return d.String("nope") }, "", `column "nope" missing from result`},
		{"String of a bigint", func(d *Decoder) any { return d.String("bigint") }, "", `column "bigint": want text, got int64`},
		{"OptString of NULL", func(d *Decoder) any { return d.OptString("null") }, "", ""},
		{"OptString of a missing column", func(d *Decoder) any { return d.OptString("nope") }, "", `column "nope" missing from result`},
		{"Int64 of a bigint", func(d *Decoder) any { return d.Int64("bigint") }, int64(-5), ""},
		{"Int64 of an int", func(d *Decoder) any { return d.Int64("int") }, int64(7), ""},
		{"Int64 of an int32", func(d *Decoder) any { return d.Int64("int32") }, int64(8), ""},
		{"Int64 of a smallint", func(d *Decoder) any { return d.Int64("int16") }, int64(9), ""},
		{"Int64 of a tinyint", func(d *Decoder) any { return d.Int64("int8") }, int64(10), ""},
		{"Int64 of NULL", func(d *Decoder) any { return d.Int64("null") }, int64(0), `column "null" is null`},
		{"Int64 of a double", func(d *Decoder) any { return d.Int64("double") }, int64(0), `column "double": want an integer, got float64`},
		{"OptInt64 of NULL", func(d *Decoder) any { return d.OptInt64("null") }, int64(0), ""},
		{"Float64 of a double", func(d *Decoder) any { return d.Float64("double") }, 1.5, ""},
		{"Float64 of a float", func(d *Decoder) any { return d.Float64("float") }, 0.25, ""},
		{"Float64 of text", func(d *Decoder) any { return d.Float64("text") }, 0.0, `column "text": want a double, got string`},
		{"OptTime in UTC", func(d *Decoder) any { return d.OptTime("ts") }, at.UTC(), ""},
		{"OptTime of NULL", func(d *Decoder) any { return d.OptTime("null") }, time.Time{}, ""},
		{"OptTime of a bigint", func(d *Decoder) any { return d.OptTime("bigint") }, time.Time{}, `column "bigint": want a timestamp, got int64`},
		{"OptStrings", func(d *Decoder) any { return d.OptStrings("set") }, []string{"x", "y"}, ""},
		{"OptStrings of NULL", func(d *Decoder) any { return d.OptStrings("null") }, []string(nil), ""},
		{"OptStrings of a map", func(d *Decoder) any { return d.OptStrings("map") }, []string(nil), `column "map": want a set of text, got map[string]string`},
		{"OptStringMap", func(d *Decoder) any { return d.OptStringMap("map") }, map[string]string{"k": "v"}, ""},
		{"OptStringMap of a set", func(d *Decoder) any { return d.OptStringMap("set") }, map[string]string(nil), `column "set": want a map of text to text, got []string`},
		{"OptKeyCounts", func(d *Decoder) any { return d.OptKeyCounts("top") }, []KeyCount{{"key", 3}}, ""},
		{"OptKeyCounts of NULL", func(d *Decoder) any { return d.OptKeyCounts("null") }, []KeyCount(nil), ""},
		{"OptKeyCounts of a set", func(d *Decoder) any { return d.OptKeyCounts("set") }, []KeyCount(nil), `column "set": want a list of (text, bigint) tuples, got []string`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(row)
			got := tc.read(d)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
			if tc.wantErr == "" && d.Err() != nil || tc.wantErr != "" && (d.Err() == nil || d.Err().Error() != tc.wantErr) {
				t.Errorf("err %v, want %q", d.Err(), tc.wantErr)
			}
		})
	}
}

func TestDecoderKeyCountElements(t *testing.T) {
	for _, tc := range []struct {
		name    string
		top     [][]any
		wantErr string
	}{
		{"short tuple", [][]any{{"k", int64(1)}, {"k"}}, `column "top" element 1: want 2 tuple fields, got 1`},
		{"NULL key", [][]any{{nil, int64(1)}}, `column "top" element 0: want a text key, got <nil>`},
		{"int value", [][]any{{"k", int32(1)}}, `column "top" element 0: want a bigint value, got int32`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDecoder(Row{"top": tc.top})
			if got := d.OptKeyCounts("top"); got != nil || d.Err() == nil || d.Err().Error() != tc.wantErr {
				t.Errorf("got %v, err %v; want nil and %q", got, d.Err(), tc.wantErr)
			}
		})
	}
}

// TestDecoderKeepsFirstFailure: after a failed read every read is a zero
// value and Err stays the first failure.
func TestDecoderKeepsFirstFailure(t *testing.T) {
	d := NewDecoder(Row{"a": nil, "b": "text", "c": int64(3)})
	if !d.Has("a") || d.Has("z") {
		t.Error("Has: a is in the result (NULL), z is not")
	}
	_ = d.String("a")
	if s, n := d.String("b"), d.Int64("c"); s != "" || n != 0 {
		t.Errorf("reads after a failure gave %q, %d", s, n)
	}
	_ = d.Int64("b") // would be a type error of its own
	if d.Err() == nil || d.Err().Error() != `column "a" is null` {
		t.Errorf("err %v, want the first failure", d.Err())
	}
}

// rows is a Querier over fixed rows, for SelectAll.
type rows []Row

func (rows) Address() string { return "10.0.0.1" }

func (r rows) Select(_ context.Context, _ string, _ []any, each func(Row) error) error {
	for _, row := range r {
		if err := each(row); err != nil {
			return err
		}
	}
	return nil
}

func TestSelectAll(t *testing.T) {
	tooBig := errors.New("too big")
	tests := []struct {
		name     string
		rows     rows
		wantRows int
		wantErr  string
	}{
		{"every row read", rows{{"n": int64(1)}, {"n": int64(2)}}, 2, ""},
		{"a decoding failure names the row", rows{{"n": int64(1)}, {"n": "2"}, {"n": int64(3)}}, 2, `row 2: column "n": want an integer, got string`},
		{"parse's own error names the row", rows{{"n": int64(1)}, {"n": int64(200)}}, 2, "row 2: too big"},
		// parse saw a zero for the NULL and accepted it; the NULL is the error.
		{"decoding failure before parse's error", rows{{"n": nil}}, 1, `row 1: column "n" is null`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var sum int64
			n, err := SelectAll(context.Background(), tc.rows, "SELECT n FROM t", nil, func(row *Decoder) error {
				v := row.Int64("n")
				if v > 100 {
					return tooBig
				}
				sum += v
				return nil
			})
			if n != tc.wantRows {
				t.Errorf("%d rows, want %d", n, tc.wantRows)
			}
			if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || err.Error() != tc.wantErr) {
				t.Errorf("err %v, want %q", err, tc.wantErr)
			}
			if tc.wantErr == "" && sum != 3 {
				t.Errorf("sum %d, want 3", sum)
			}
		})
	}
}
