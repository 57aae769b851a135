package web

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"io"
	"sync"
)

// A gzip body assembled from pieces compressed at different times: the
// cached part of /metrics is deflated once per report, the live families
// around it on each scrape. Deflate blocks of separate compressors follow
// each other in one stream when every piece but the last ends with a sync
// flush (byte-aligned, not final); the CRC-32 of the whole is combined from
// the pieces' CRCs. The result is one ordinary gzip member (RFC 1952).

// deflated is one compressed piece and what the trailer needs of its text.
type deflated struct {
	data []byte // deflate blocks, sync-flushed, never final
	crc  uint32 // CRC-32 (IEEE) of the uncompressed text
	size int64  // length of the uncompressed text
}

var flatePool = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.DefaultCompression) // the level is valid: no error
	return w
}}

// deflate compresses text into a piece that more may follow.
func deflate(text []byte) deflated {
	var buf bytes.Buffer
	w := flatePool.Get().(*flate.Writer)
	defer flatePool.Put(w)
	w.Reset(&buf)
	_, _ = w.Write(text) // a bytes.Buffer does not fail
	_ = w.Flush()
	return deflated{data: buf.Bytes(), crc: crc32.ChecksumIEEE(text), size: int64(len(text))}
}

// gzipHeader: deflate, no flags, no modification time, unknown OS
// (what compress/gzip writes at its default level).
var gzipHeader = []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 255}

// writeGzip writes one gzip member of pieces followed by last, which is
// compressed here and ends the deflate stream.
func writeGzip(w io.Writer, last []byte, pieces ...deflated) error {
	if _, err := w.Write(gzipHeader); err != nil {
		return err
	}
	var crc uint32
	var size int64
	for _, p := range pieces {
		if _, err := w.Write(p.data); err != nil {
			return err
		}
		crc, size = crc32Combine(crc, p.crc, p.size), size+p.size
	}
	fw := flatePool.Get().(*flate.Writer)
	defer flatePool.Put(fw)
	fw.Reset(w)
	if _, err := fw.Write(last); err != nil {
		return err
	}
	if err := fw.Close(); err != nil {
		return err
	}
	crc, size = crc32Combine(crc, crc32.ChecksumIEEE(last), int64(len(last))), size+int64(len(last))
	var trailer [8]byte
	binary.LittleEndian.PutUint32(trailer[:4], crc)
	binary.LittleEndian.PutUint32(trailer[4:], uint32(size)) // ISIZE is the size modulo 2^32
	_, err := w.Write(trailer[:])
	return err
}

// crc32Combine is the CRC-32 (IEEE) of A‖B from crcA, crcB and len(B),
// without reading A or B: zlib's crc32_combine, which applies len(B) zero
// bytes to crcA as a matrix over GF(2) squared per bit of the length.
func crc32Combine(crcA, crcB uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return crcA
	}
	var even, odd [32]uint32
	odd[0] = crc32.IEEE // the operator for one zero bit
	row := uint32(1)
	for n := 1; n < 32; n++ {
		odd[n] = row
		row <<= 1
	}
	gf2Square(&even, &odd) // two zero bits
	gf2Square(&odd, &even) // four zero bits
	for {
		gf2Square(&even, &odd) // the first pass: one zero byte
		if lenB&1 != 0 {
			crcA = gf2Times(&even, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
		gf2Square(&odd, &even)
		if lenB&1 != 0 {
			crcA = gf2Times(&odd, crcA)
		}
		if lenB >>= 1; lenB == 0 {
			break
		}
	}
	return crcA ^ crcB
}

func gf2Times(mat *[32]uint32, vec uint32) uint32 {
	var sum uint32
	for i := 0; vec != 0; i, vec = i+1, vec>>1 {
		if vec&1 != 0 {
			sum ^= mat[i]
		}
	}
	return sum
}

func gf2Square(square, mat *[32]uint32) {
	for n := range 32 {
		square[n] = gf2Times(mat, mat[n])
	}
}
