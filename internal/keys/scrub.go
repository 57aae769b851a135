package keys

import (
	"cmp"
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
// bounded: past the bound the keys named least recently are forgotten,
// never one this call names. The matcher is rebuilt only when the set
// changes: a key learned again costs a map lookup.
func (k *Keyer) Learn(keys ...string) {
	if !k.Hides() {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.calls++
	k.limit = max(k.limit, maxKnown, 2*len(keys))
	if k.known == nil {
		k.known = make(map[string]*learnedKey, len(keys))
	}
	for _, key := range keys {
		if key == "" {
			continue
		}
		if e := k.known[key]; e != nil {
			e.seen = k.calls
			continue
		}
		k.known[key] = &learnedKey{shown: k.show(key), forms: encodings(key), seen: k.calls}
		k.forms = nil
	}
	if len(k.known) > k.limit {
		k.forget()
	}
}

// show is Show without the lookup of a learned key's (k.mu held).
func (k *Keyer) show(key string) string {
	switch k.Mode() {
	case Hashed:
		return k.Token(key)
	case Omitted:
		return OmittedKey
	}
	return key
}

// forget drops the keys named least recently until half the bound is
// left, keeping every key the current call named (k.mu held).
func (k *Keyer) forget() {
	type aged struct {
		key  string
		seen uint64
	}
	var old []aged
	for key, e := range k.known {
		if e.seen < k.calls {
			old = append(old, aged{key, e.seen})
		}
	}
	slices.SortFunc(old, func(a, b aged) int { return cmp.Compare(a.seen, b.seen) })
	for _, a := range old {
		if len(k.known) <= k.limit/2 {
			break
		}
		delete(k.known, a.key)
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
	if k.forms != nil || len(k.known) == 0 {
		defer k.mu.RUnlock()
		return k.forms
	}
	k.mu.RUnlock()
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.forms != nil || len(k.known) == 0 {
		return k.forms
	}
	n := 0
	for _, e := range k.known {
		n += len(e.forms)
	}
	out := make([]form, 0, n)
	for _, e := range k.known {
		for _, f := range e.forms {
			out = append(out, form{f, e.shown})
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
