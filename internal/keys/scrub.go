package keys

import (
	"encoding/hex"
	"encoding/json"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Free text (a finding's summary, a note, the statement Cassandra logged,
// a log line partmon writes) is scrubbed of every key the Keyer has
// learned: wherever the key stands as a word of its own, it is replaced by
// what Show gives. "As a word": a key that starts (ends) with a letter or
// digit is not replaced inside a longer word or number, so key 42 leaves
// "1,042" alone but not "partition 42 of".

// Learn adds keys to those scrubbed from free text. The known keys are
// bounded: past maxKnown the oldest generation is forgotten.
func (k *Keyer) Learn(keys ...string) {
	if !k.Hides() {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, key := range keys {
		if key == "" || k.known[key] || k.older[key] {
			continue
		}
		if k.known == nil || len(k.known) >= maxKnown {
			k.older, k.known = k.known, map[string]bool{}
		}
		k.known[key] = true
		k.forms = nil
	}
}

// form is one encoding of a learned key and what replaces it.
type form struct{ text, shown string }

// learned is the matcher of every encoding of every known key; built once
// per change of the key set, so that scrubbing a string is one pass over it
// whatever the number of keys. Nil when no key is known.
func (k *Keyer) learned() *matcher {
	k.mu.RLock()
	if k.forms != nil || len(k.known)+len(k.older) == 0 {
		defer k.mu.RUnlock()
		return k.forms
	}
	k.mu.RUnlock()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.forms != nil {
		return k.forms
	}
	out := make([]form, 0, 5*(len(k.known)+len(k.older)))
	add := func(key string) {
		shown := k.Show(key)
		for _, e := range encodings(key) {
			out = append(out, form{e, shown})
		}
	}
	for key := range k.known {
		add(key)
	}
	for key := range k.older {
		if !k.known[key] {
			add(key)
		}
	}
	k.forms = newMatcher(out)
	return k.forms
}

// Scrub replaces every learned key standing as a word in s by Show(key),
// in each of its encodings; s unchanged in plain mode.
func (k *Keyer) Scrub(s string) string {
	if !k.Hides() || s == "" {
		return s
	}
	if m := k.learned(); m != nil {
		return m.scrub(s)
	}
	return s
}

// encodings are the forms a key takes in encoded output: JSON-escaped
// (a log line, the API), URL-escaped (a link), and the hex of its bytes
// (Cassandra prints a DecoratedKey's bytes in hex).
func encodings(key string) []string {
	out := []string{key}
	if b, err := json.Marshal(key); err == nil {
		if e := string(b[1 : len(b)-1]); e != key {
			out = append(out, e)
		}
	}
	forms := []string{logJSON(key), url.QueryEscape(key), url.PathEscape(key), hex.EncodeToString([]byte(key))}
	// The logfmt log re-quotes a JSON string value with strconv.Quote (\x01,
	// not \u0001), writes invalid UTF-8 as U+FFFD, and a key inside a
	// nested value (an array, an object) escaped twice.
	valid := strings.ToValidUTF8(key, "\uFFFD")
	forms = append(forms, goQuoted(key), valid, goQuoted(valid))
	if b, err := json.Marshal(key); err == nil {
		forms = append(forms, goQuoted(string(b[1:len(b)-1])))
	}
	for _, e := range forms {
		if e != key && !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// goQuoted is s as strconv.Quote writes it, without the quotes.
func goQuoted(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// isWord: an ASCII letter, digit or underscore, or any byte of a non-ASCII
// character (a letter of another script, as likely as not).
func isWord(c byte) bool {
	return c == '_' || c >= 0x80 || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// Writer scrubs what is written to w (a logger's output: each write is one
// entry) of learned keys, in their plain, JSON- and URL-escaped forms.
func (k *Keyer) Writer(w io.Writer) io.Writer {
	if k == nil {
		return w
	}
	return scrubWriter{k: k, w: w}
}

type scrubWriter struct {
	k *Keyer
	w io.Writer
}

func (s scrubWriter) Write(p []byte) (int, error) {
	if !s.k.Hides() {
		return s.w.Write(p)
	}
	if _, err := io.WriteString(s.w, s.k.Scrub(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
