package keys

import (
	"encoding/json"
	"math/rand"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func TestScrubOverlappingKeys(t *testing.T) {
	k := New(Hashed, secret, 0)
	keys := []string{"ab", "abc", "abcd", "bc", "b c", "a b c", "x-", "y", "user.1", "user.10", "üser", "日本", "日本語", "tenant:1", "1"}
	k.Learn(keys...)
	sh := map[string]string{}
	for _, key := range keys {
		sh[key] = k.Show(key)
	}
	cases := []struct{ name, in, want string }{
		{"longest of prefixes wins", "key abcd here", "key " + sh["abcd"] + " here"},
		{"prefix key alone", "key ab here", "key " + sh["ab"] + " here"},
		{"each prefix key where it stands", "abc, ab and abcd", sh["abc"] + ", " + sh["ab"] + " and " + sh["abcd"]},
		{"a key inside a longer word is left", "xabcd abcdx", "xabcd abcdx"},
		{"overlap: the longer key takes it", "a b c", sh["a b c"]},
		{"overlapping keys inside a longer word", "a b cd", "a b cd"},
		{"overlap: the shorter key where the longer is not a word", "xa b c", "xa " + sh["b c"]},
		{"prefix numbers", "user.10 and user.1 and user.100", sh["user.10"] + " and " + sh["user.1"] + " and user.100"},
		{"unicode: not inside a longer word", "üser üsers", sh["üser"] + " üsers"},
		{"unicode: longest first", "日本語 and 日本", sh["日本語"] + " and " + sh["日本"]},
		{"unicode in escapes", `"\u00fcser"`, `"\u00fcser"`},
		{"a key ending in a non-word byte", "x-y", sh["x-"] + sh["y"]},
		{"a number key only as a number", "1, 10, 1.5, tenant:1", sh["1"] + ", 10, " + sh["1"] + ".5, " + sh["tenant:1"]},
		{"url form", "q=tenant%3A1&x", "q=" + sh["tenant:1"] + "&x"},
		{"empty", "", ""},
	}
	for _, c := range cases {
		if got := k.Scrub(c.in); got != c.want {
			t.Errorf("%s: Scrub(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

// scrubOneFormAtATime is the scrub before the matcher: a search per form,
// longest first, each replacing every occurrence standing as a word.
func scrubOneFormAtATime(k *Keyer, keys []string, s string) string {
	var forms []form
	for _, key := range keys {
		for _, e := range encodings(key) {
			forms = append(forms, form{e, k.Show(key)})
		}
	}
	sort.Slice(forms, func(i, j int) bool {
		if len(forms[i].text) != len(forms[j].text) {
			return len(forms[i].text) > len(forms[j].text)
		}
		return forms[i].text < forms[j].text
	})
	for _, f := range forms {
		var b strings.Builder
		rest := s
		for {
			i := indexWordRef(rest, f.text)
			if i < 0 {
				b.WriteString(rest)
				break
			}
			b.WriteString(rest[:i])
			b.WriteString(f.shown)
			rest = rest[i+len(f.text):]
		}
		s = b.String()
	}
	return s
}

func indexWordRef(s, key string) int {
	for off := 0; ; {
		i := strings.Index(s[off:], key)
		if i < 0 {
			return -1
		}
		i += off
		end := i + len(key)
		if (i == 0 || !isWord(key[0]) || !isWord(s[i-1])) && (end == len(s) || !isWord(key[len(key)-1]) || !isWord(s[end])) {
			return i
		}
		off = i + 1
	}
}

// The matcher replaces what a search per form replaced. Omitted mode: its
// replacement begins and ends with a non-word byte, as did every key the
// search replaced, so neither reads boundaries differently; the alphabet
// has no byte of "(key omitted)", whose insides the search could match.
func TestScrubAsOneFormAtATime(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	alphabet := []string{"a", "b", "1", "-", ".", ",", "é", "\""}
	word := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(alphabet[rng.Intn(len(alphabet))])
		}
		return b.String()
	}
	for round := 0; round < 300; round++ {
		k := New(Omitted, nil, 0)
		var keys []string
		for i := 0; i < 1+rng.Intn(8); i++ {
			keys = append(keys, word(1+rng.Intn(4)))
		}
		k.Learn(keys...)
		for j := 0; j < 20; j++ {
			s := word(rng.Intn(30))
			if got, want := k.Scrub(s), scrubOneFormAtATime(k, keys, s); got != want {
				t.Fatalf("keys %q: Scrub(%q) = %q, a search per form gives %q", keys, s, got, want)
			}
		}
	}
}

// A string scrubbed again comes from the memo; a key learned after
// rebuilds the matcher and empties it.
func TestScrubMemoFollowsLearning(t *testing.T) {
	k := New(Omitted, nil, 0)
	k.Learn("alice")
	if got := k.Scrub("alice and bob"); got != OmittedKey+" and bob" {
		t.Fatalf("Scrub = %q", got)
	}
	if got := k.Scrub("alice and bob"); got != OmittedKey+" and bob" {
		t.Fatalf("Scrub again = %q", got)
	}
	k.Learn("bob")
	if got := k.Scrub("alice and bob"); got != OmittedKey+" and "+OmittedKey {
		t.Fatalf("Scrub after learning bob = %q", got)
	}
	for i := 0; i < memoMax+10; i++ {
		k.Scrub(strings.Repeat("x", i%50) + " alice")
	}
	if n := len(k.learned().memo); n > memoMax {
		t.Errorf("memo holds %d strings, bound %d", n, memoMax)
	}
}

// The logfmt log quotes a value with strconv.Quote (a control byte as \x01,
// invalid UTF-8 as U+FFFD) and a nested value's key twice: each form is
// scrubbed like the JSON one.
func TestScrubLogfmtForms(t *testing.T) {
	k := New(Omitted, []byte("secret"), 0)
	for _, key := range []string{"a\x01b\"c", "bad\xffutf8\"q", `x"y\z`} {
		k.Learn(key)
		nested, _ := json.Marshal(key)
		for _, shown := range []string{strconv.Quote(key), strconv.Quote(strings.ToValidUTF8(key, "\uFFFD")), strconv.Quote(string(nested))} {
			inner := shown[1 : len(shown)-1]
			if got := k.Scrub("key=" + shown + " end"); strings.Contains(got, inner) {
				t.Errorf("key %q written as %s: scrubbed to %s, the key's form still there", key, shown, got)
			}
		}
	}
}
