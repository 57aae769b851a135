package murmur3

import (
	"encoding/hex"
	"math"
	"strings"
	"testing"
)

// Known first halves of the hash: the DataStax Java driver's values, as
// gocql's murmur tests list them; the last vector has tail bytes ≥ 0x80,
// where Cassandra's signed tail differs from reference MurmurHash3.
func TestHash128KnownVectors(t *testing.T) {
	cases := []struct {
		in   string
		want uint64
	}{
		{"0", 0x2ac9debed546a380},
		{"01", 0x649e4eaa7fc1708e},
		{"0123", 0x0f95757ce7f38254},
		{"01234567", 0x8236039b7387354d},
		{"012345678", 0x4c1e87519fe738ba},
		{"012345678901234", 0xa4b203bb1d90b9a3},
		{"0123456789012345", 0xa3293ad698ecb99a},
		{"01234567890123456", 0xbc740023dbd50048},
		{"0123456789012345678", 0x2d0338c1ca87d132},
		{"hello", 0xcbd8a7b341bd9b02},
		{"hello, world", 0x342fac623a5ebc8e},
		{"The quick brown fox jumps over the lazy dog.", 0xcd99481f9ee902c9},
	}
	for _, c := range cases {
		if h1, _ := Hash128([]byte(c.in), 0); h1 != c.want {
			t.Errorf("Hash128(%q) h1 = %#x, want %#x", c.in, h1, c.want)
		}
	}
	signedTail, _ := hex.DecodeString("00104327529fb645dd00b883ec39ae448bb800000400066a6b00")
	if got, want := Token(signedTail), int64(-9223371632693506265); got != want {
		t.Errorf("Token(signed tail) = %d, want %d", got, want)
	}
}

func TestTokenEdges(t *testing.T) {
	if got := Token(nil); got != math.MinInt64 {
		t.Errorf("Token(empty) = %d, want the minimum token", got)
	}
	h1, _ := Hash128([]byte("hello"), 0)
	if got := Token([]byte("hello")); got != int64(h1) {
		t.Errorf("Token(hello) = %d, want h1 %d", got, int64(h1))
	}
}

func TestSerializeKey(t *testing.T) {
	cases := []struct {
		key     string
		types   []string
		wantHex string
		wantErr string
	}{
		{"abc", []string{"text"}, "616263", ""},
		{"a:b", []string{"text"}, "613a62", ""}, // one column: ':' is part of the value
		{"42", []string{"int"}, "0000002a", ""},
		{"-1", []string{"int"}, "ffffffff", ""},
		{"42", []string{"bigint"}, "000000000000002a", ""},
		{"7", []string{"smallint"}, "0007", ""},
		{"-2", []string{"tinyint"}, "fe", ""},
		{"true", []string{"boolean"}, "01", ""},
		{"1.5", []string{"double"}, "3ff8000000000000", ""},
		{"1.5", []string{"float"}, "3fc00000", ""},
		{"cafe", []string{"blob"}, "cafe", ""},
		{"0xcafe", []string{"blob"}, "cafe", ""},
		{"1970-01-02", []string{"date"}, "80000001", ""},
		{"1000", []string{"timestamp"}, "00000000000003e8", ""},
		{"1970-01-01T00:00:01.000Z", []string{"timestamp"}, "00000000000003e8", ""},
		{"127.0.0.1", []string{"inet"}, "7f000001", ""},
		{"123e4567-e89b-12d3-a456-426614174000", []string{"uuid"}, "123e4567e89b12d3a456426614174000", ""},
		{"ab:7", []string{"text", "int"}, "00026162" + "00" + "000400000007" + "00", ""},
		{`a\:b:1`, []string{"text", "tinyint"}, "0003613a6200" + "00010100", ""},
		{`a\!:b!!:1`, []string{"text", "text", "tinyint"}, "0002615c00" + "0002622100" + "00010100", ""}, // components "a\" and "b!"
		{"ab", []string{"text", "int"}, "", "2 columns"},
		{"x", []string{"int"}, "", "int value"},
		{"1", []string{"varint"}, "", "not supported"},
		{"1", []string{"frozen<tuple<int, int>>"}, "", "not supported"},
		{"1", nil, "", "no partition key"},
	}
	for _, c := range cases {
		got, err := SerializeKey(c.key, c.types)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("SerializeKey(%q, %v) error = %v, want one with %q", c.key, c.types, err, c.wantErr)
			}
			continue
		}
		if err != nil || hex.EncodeToString(got) != c.wantHex {
			t.Errorf("SerializeKey(%q, %v) = %x, %v; want %s", c.key, c.types, got, err, c.wantHex)
		}
	}
}
