package web

import (
	"bytes"
	"compress/gzip"
	"hash/crc32"
	"io"
	"strings"
	"testing"
)

func TestCRC32Combine(t *testing.T) {
	long := strings.Repeat("partmon_table_max_partition_size_bytes 1\n", 5000)
	tests := []struct{ a, b string }{
		{"", ""}, {"abc", ""}, {"", "abc"}, {"a", "b"}, {"hello, ", "world"}, {long, "tail"}, {"head", long}, {long, long},
	}
	for _, tc := range tests {
		got := crc32Combine(crc32.ChecksumIEEE([]byte(tc.a)), crc32.ChecksumIEEE([]byte(tc.b)), int64(len(tc.b)))
		if want := crc32.ChecksumIEEE([]byte(tc.a + tc.b)); got != want {
			t.Errorf("combine(%d bytes, %d bytes) = %08x, want %08x", len(tc.a), len(tc.b), got, want)
		}
	}
}

// A body assembled from pieces is one gzip member that decodes, with its
// checksum verified, to the pieces' text in order.
func TestWriteGzipPieces(t *testing.T) {
	big := []byte(strings.Repeat("go_goroutines 12\npartmon_up 1\n", 20000))
	tests := []struct {
		name   string
		pieces [][]byte
		last   []byte
	}{
		{name: "only the last", last: []byte("partmon_up 1\n")},
		{name: "nothing at all"},
		{name: "cached part and an empty tail", pieces: [][]byte{big}},
		{name: "before, cached, after", pieces: [][]byte{[]byte("go_goroutines 7\n"), big}, last: []byte("process_open_fds 9\n")},
		{name: "empty pieces", pieces: [][]byte{{}, big, {}}, last: []byte("x 1\n")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var want []byte
			var ds []deflated
			for _, p := range tc.pieces {
				ds = append(ds, deflate(p))
				want = append(want, p...)
			}
			want = append(want, tc.last...)
			var body bytes.Buffer
			if err := writeGzip(&body, tc.last, ds...); err != nil {
				t.Fatal(err)
			}
			r, err := gzip.NewReader(&body)
			if err != nil {
				t.Fatal(err)
			}
			r.Multistream(false) // one member must hold everything
			got, err := io.ReadAll(r)
			if err != nil {
				t.Fatalf("decoding: %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("decoded %d bytes, want %d", len(got), len(want))
			}
		})
	}
}
