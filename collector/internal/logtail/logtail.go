// Package logtail follows a log file that its writer rotates or truncates:
// each Poll reads the lines written since the last one, a bounded number of
// bytes at a time, and a Cursor lets a restarted reader resume where it
// stopped instead of reading the file again from its start.
package logtail

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Cursor is where a Tailer stands: which file (device and inode, and a
// hash of its first bytes, because inodes are reused after a rotation) and
// the offset of the first byte not consumed yet.
type Cursor struct {
	Path   string `json:"path"`
	Dev    uint64 `json:"dev"`
	Inode  uint64 `json:"inode"`
	Head   string `json:"head"`   // sha256 of the file's first HeadN bytes
	HeadN  int    `json:"head_n"` // HeadBytes, or the file's size while it was shorter
	Offset int64  `json:"offset"`
}

// HeadBytes is how much of a file's start identifies it: a log's first line
// carries a timestamp, so two files differ there.
const HeadBytes = 1024

// MaxLineBytes bounds one line; the rest of a longer line is skipped.
const MaxLineBytes = 256 << 10

// Stats says what one Poll did.
type Stats struct {
	Bytes int64 // bytes consumed
	Lines int
	// Rotated: the path now names another file (the old one was read to its
	// end first, through the descriptor still open on it).
	Rotated bool
	// Truncated: the file was cut (copytruncate) or rewritten under the same
	// inode; lines written between the last poll and the cut are lost.
	Truncated bool
	// More: the byte budget ran out before the end of the file.
	More bool
	// Resumed: the first Poll continued from the saved cursor. Restarted:
	// the saved cursor named a file that is no longer at the path (rotated
	// while nobody read it), so the current file is read from its start.
	Resumed, Restarted bool
	// Skipped: bytes before where a first run without a cursor started.
	Skipped   int64
	LongLines int // lines cut at MaxLineBytes
}

// Tailer follows one path. It is not safe for concurrent use.
type Tailer struct {
	path  string
	f     *os.File
	cur   Cursor
	saved *Cursor // an earlier run's cursor, used by the first open
	// within bounds where the first open starts without a usable cursor:
	// at most this many bytes before the end (0: the start).
	within int64
	opened bool
	// partial is the start of a line longer than the read buffer; skipping
	// is true while the rest of a line cut at MaxLineBytes goes by.
	partial  []byte
	skipping bool
}

// New follows path from saved, an earlier run's cursor. Without one (nil,
// or a cursor of another path), it starts within bytes of the end of the
// file, at a line start, so a first run reads recent history and not a
// whole old file; within 0 reads the file from its start. A saved cursor
// of a file that has since been rotated away starts the new file at its
// start: none of it was read.
func New(path string, saved *Cursor, within int64) *Tailer {
	t := &Tailer{path: path, within: within}
	if saved != nil && saved.Path == path {
		c := *saved
		t.saved = &c
	}
	return t
}

// Cursor is where the next Poll starts.
func (t *Tailer) Cursor() Cursor { return t.cur }

// Close releases the open file.
func (t *Tailer) Close() error {
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}

// Poll calls line for every complete line written since the last Poll, up
// to budget bytes. It never passes a line twice.
func (t *Tailer) Poll(budget int64, line func(string)) (Stats, error) {
	var st Stats
	if t.f == nil {
		if err := t.open(&st); err != nil {
			return st, err
		}
	} else if err := t.checkRewritten(&st); err != nil {
		return st, err
	}
	// Drain the open file first: after a rotation it still holds the lines
	// written before the rename.
	if err := t.read(&st, &budget, line); err != nil || st.More {
		return st, err
	}
	fi, err := os.Stat(t.path)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil // rotated away, not recreated yet: a later Poll opens it
	}
	if err != nil {
		return st, err
	}
	if dev, ino := fileID(fi); dev == t.cur.Dev && ino == t.cur.Inode {
		return st, nil
	}
	// Lines the writer added between the drain and its rename.
	if err := t.read(&st, &budget, line); err != nil || st.More {
		return st, err
	}
	_ = t.Close() // the rotated-away file was only read
	st.Rotated = true
	if err := t.open(&st); err != nil {
		return st, err
	}
	return st, t.read(&st, &budget, line)
}

// open opens the path: at the saved cursor when it still names this file
// with the same first bytes, else at the start.
func (t *Tailer) open(st *Stats) error {
	f, err := os.Open(t.path)
	if err != nil {
		return fmt.Errorf("open %s: %w", t.path, err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close() // only read; the stat's error is the one to report
		return fmt.Errorf("stat %s: %w", t.path, err)
	}
	dev, ino := fileID(fi)
	t.f, t.cur, t.partial, t.skipping = f, Cursor{Path: t.path, Dev: dev, Inode: ino}, nil, false
	first := !t.opened
	t.opened = true
	if s := t.saved; s != nil {
		t.saved = nil
		head, n, err := hashHead(f, s.HeadN)
		if err != nil {
			return err
		}
		if s.Dev == dev && s.Inode == ino && head == s.Head && n == s.HeadN && fi.Size() >= s.Offset {
			st.Resumed = true
			t.cur = *s
		} else {
			st.Restarted = true
		}
	} else if first && t.within > 0 && fi.Size() > t.within {
		off, err := nextLineStart(f, fi.Size()-t.within)
		if err != nil {
			return err
		}
		t.cur.Offset = off
		st.Skipped = off
	}
	_, err = f.Seek(t.cur.Offset, io.SeekStart)
	return err
}

// nextLineStart is the offset just after the first newline at or after off
// (the end of the file when there is none).
func nextLineStart(f *os.File, off int64) (int64, error) {
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return 0, err
	}
	r := bufio.NewReader(f)
	for {
		b, err := r.ReadSlice('\n')
		off += int64(len(b))
		if err == nil || errors.Is(err, io.EOF) {
			return off, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return 0, fmt.Errorf("read %s: %w", f.Name(), err)
		}
	}
}

// checkRewritten notices a truncation: the file is shorter than the
// cursor, or its first bytes changed (cut and written past the old offset
// between two polls). The file is then read again from its start: it holds
// new lines only.
func (t *Tailer) checkRewritten(st *Stats) error {
	fi, err := t.f.Stat()
	if err != nil {
		return fmt.Errorf("stat %s: %w", t.path, err)
	}
	cut := fi.Size() < t.cur.Offset
	if !cut && t.cur.HeadN > 0 {
		head, n, err := hashHead(t.f, t.cur.HeadN)
		if err != nil {
			return err
		}
		cut = n < t.cur.HeadN || head != t.cur.Head
	}
	if !cut {
		return nil
	}
	st.Truncated = true
	t.cur.Offset, t.cur.Head, t.cur.HeadN, t.partial, t.skipping = 0, "", 0, nil, false
	_, err = t.f.Seek(0, io.SeekStart)
	return err
}

// read consumes complete lines from the open file while budget lasts; an
// unfinished last line stays in the file for the next Poll.
func (t *Tailer) read(st *Stats, budget *int64, line func(string)) error {
	defer t.noteHead()
	r := bufio.NewReaderSize(t.f, 64<<10)
	for *budget > 0 {
		chunk, err := r.ReadSlice('\n')
		switch {
		case err == nil:
			t.consume(st, budget, len(chunk))
			t.emit(st, chunk[:len(chunk)-1], true, line)
		case errors.Is(err, bufio.ErrBufferFull):
			t.consume(st, budget, len(chunk))
			t.emit(st, chunk, false, line)
		case errors.Is(err, io.EOF):
			_, serr := t.f.Seek(t.cur.Offset, io.SeekStart)
			return serr
		default:
			return fmt.Errorf("read %s: %w", t.path, err)
		}
	}
	st.More = true
	_, err := t.f.Seek(t.cur.Offset, io.SeekStart)
	return err
}

func (t *Tailer) consume(st *Stats, budget *int64, n int) {
	*budget -= int64(n)
	t.cur.Offset += int64(n)
	st.Bytes += int64(n)
}

// emit passes a line on once it is complete, keeping at most MaxLineBytes.
func (t *Tailer) emit(st *Stats, b []byte, complete bool, line func(string)) {
	if t.skipping {
		t.skipping = !complete
		return
	}
	if room := MaxLineBytes - len(t.partial); len(b) > room {
		st.LongLines++
		st.Lines++
		line(trimCR(string(append(t.partial, b[:room]...))))
		t.partial, t.skipping = t.partial[:0], !complete
		return
	}
	t.partial = append(t.partial, b...)
	if complete {
		st.Lines++
		line(trimCR(string(t.partial)))
		t.partial = t.partial[:0]
	}
}

// noteHead hashes the file's first bytes until it has HeadBytes of them.
func (t *Tailer) noteHead() {
	if t.f == nil || t.cur.HeadN >= HeadBytes {
		return
	}
	if head, n, err := hashHead(t.f, HeadBytes); err == nil {
		t.cur.Head, t.cur.HeadN = head, n
	}
}

// hashHead hashes the first n bytes of f (fewer if f is shorter) without
// moving its offset.
func hashHead(f *os.File, n int) (string, int, error) {
	buf := make([]byte, n)
	got, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return "", 0, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	sum := sha256.Sum256(buf[:got])
	return hex.EncodeToString(sum[:]), got, nil
}

func fileID(fi os.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), st.Ino
	}
	return 0, 0
}

func trimCR(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\r' {
		return s[:n-1]
	}
	return s
}
