package keys

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var secret = []byte("0123456789abcdef-test-secret")

func TestShow(t *testing.T) {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("alice@example.org"))
	want := "h:" + hex.EncodeToString(m.Sum(nil))[:16]
	cases := []struct {
		name string
		k    *Keyer
		key  string
		want string
	}{
		{"nil keyer is plain", nil, "alice@example.org", "alice@example.org"},
		{"plain", New(Plain, nil, 0), "alice@example.org", "alice@example.org"},
		{"hashed is HMAC-SHA-256, 16 hex", New(Hashed, secret, 0), "alice@example.org", want},
		{"hashed, 8 hex", New(Hashed, secret, 8), "alice@example.org", want[:2+8]},
		{"omitted", New(Omitted, secret, 0), "alice@example.org", OmittedKey},
		{"no key stays none", New(Hashed, secret, 0), "", ""},
	}
	for _, c := range cases {
		if got := c.k.Show(c.key); got != c.want {
			t.Errorf("%s: Show(%q) = %q, want %q", c.name, c.key, got, c.want)
		}
	}
	other := New(Hashed, []byte("another-secret-of-16+"), 0)
	if other.Show("alice@example.org") == want {
		t.Error("a different secret gives the same hash")
	}
}

func TestID(t *testing.T) {
	h, h2 := New(Hashed, secret, 0), New(Hashed, secret, 0)
	if got := New(Plain, nil, 0).ID("abc"); got != "abc" {
		t.Errorf("plain ID changed: %q", got)
	}
	if h.ID("abc") != h2.ID("abc") || h.ID("abc") == h.ID("abd") || h.ID("abc") == "abc" {
		t.Errorf("hashed IDs: want stable across Keyers, distinct per ID and changed: %q %q %q", h.ID("abc"), h2.ID("abc"), h.ID("abd"))
	}
	o := New(Omitted, nil, 0)
	if o.ID("abc") != New(Omitted, nil, 0).ID("abc") || o.ID("abc") == o.ID("abd") || len(o.ID("abc")) != 16 {
		t.Errorf("omitted IDs without a secret: want stable and distinct, got %q %q", o.ID("abc"), o.ID("abd"))
	}
}

func TestScrub(t *testing.T) {
	k := New(Hashed, secret, 0)
	k.Learn("alice.secret@example.org", "42", "a'b")
	tok, t42 := k.Show("alice.secret@example.org"), k.Show("42")
	cases := []struct{ in, want string }{
		{"partition alice.secret@example.org of ks.t holds 3 tombstones", "partition " + tok + " of ks.t holds 3 tombstones"},
		{"SELECT * FROM ks.t WHERE id = 'alice.secret@example.org' LIMIT 5000", "SELECT * FROM ks.t WHERE id = '" + tok + "' LIMIT 5000"},
		{"partition 42 of ks.t, 1,042 rows, 420 bytes", "partition " + t42 + " of ks.t, 1,042 rows, 420 bytes"},
		{"key alice.secret%40example.org", "key " + tok},
		{"DecoratedKey(-1, " + hex.EncodeToString([]byte("alice.secret@example.org")) + ")", "DecoratedKey(-1, " + tok + ")"},
		{"nothing here", "nothing here"},
	}
	for _, c := range cases {
		if got := k.Scrub(c.in); got != c.want {
			t.Errorf("Scrub(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := New(Plain, nil, 0).Scrub("partition 42"); got != "partition 42" {
		t.Errorf("plain scrubbed: %q", got)
	}
}

func TestWriter(t *testing.T) {
	k := New(Omitted, nil, 0)
	var buf bytes.Buffer
	w := k.Writer(&buf)
	k.Learn(`bob "the" builder`)
	line := `{"msg":"line","line":"key bob \"the\" builder was large"}` + "\n"
	if n, err := w.Write([]byte(line)); err != nil || n != len(line) {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if strings.Contains(buf.String(), "builder") || !strings.Contains(buf.String(), OmittedKey) {
		t.Errorf("log line not scrubbed of the JSON-escaped key: %s", buf.String())
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good, short := filepath.Join(dir, "secret"), filepath.Join(dir, "short")
	for path, data := range map[string][]byte{good: append(secret, '\n'), short: []byte("tiny\n")} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		cfg     Config
		wantErr string
	}{
		{Config{}, ""},
		{Config{Mode: Hashed, SecretFile: good}, ""},
		{Config{Mode: Omitted}, ""},
		{Config{Mode: Hashed}, ""},
		{Config{Mode: Hashed, SecretFile: short}, "want at least 16"},
		{Config{Mode: Hashed, SecretFile: filepath.Join(dir, "missing")}, "no such file"},
		{Config{Mode: "sha"}, "keys.mode: want plain, hashed or omitted"},
		{Config{Mode: Hashed, SecretFile: good, HashLength: 4}, "keys.hash_length"},
	}
	for _, c := range cases {
		k, err := Load(c.cfg)
		switch {
		case c.wantErr == "" && err != nil:
			t.Errorf("Load(%+v): %v", c.cfg, err)
		case c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)):
			t.Errorf("Load(%+v) = %v, want an error with %q", c.cfg, err, c.wantErr)
		case c.wantErr == "" && c.cfg.SecretFile != "" && k.Show("x") != New(Hashed, secret, 0).Show("x"):
			t.Errorf("the secret file's trailing newline is part of the secret")
		}
	}
}

// Keys hidden without a secret file are keyed all the same: an ID's input
// is public but for the key, so an unkeyed digest of it names a guessable
// key. Two processes without a file key differently; with the generated
// file (0600, beside the state file, kept across starts) they agree.
func TestLoadAlwaysKeyed(t *testing.T) {
	unkeyed := New(Omitted, nil, 0).ID("abc")
	a, errA := Load(Config{Mode: Omitted})
	b, errB := Load(Config{Mode: Omitted})
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if a.ID("abc") == unkeyed || a.ID("abc") == b.ID("abc") {
		t.Fatalf("omitted without a secret file: ID %q, unkeyed %q, another process %q: want keyed by a secret of its own", a.ID("abc"), unkeyed, b.ID("abc"))
	}
	state := filepath.Join(t.TempDir(), "state.json")
	c1, created, err := Config{Mode: Omitted}.Generate(state)
	if err != nil || !created || c1.SecretFile != filepath.Join(filepath.Dir(state), GeneratedSecretName) {
		t.Fatalf("Generate: %+v created=%v %v", c1, created, err)
	}
	if fi, err := os.Stat(c1.SecretFile); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("generated secret: %v, %v; want mode 0600", fi, err)
	}
	c2, created, err := Config{Mode: Hashed}.Generate(state)
	if err != nil || created || c2.SecretFile != c1.SecretFile {
		t.Fatalf("second Generate: %+v created=%v %v; want the same file kept", c2, created, err)
	}
	k1, _ := Load(c1)
	k2, _ := Load(Config{Mode: Omitted, SecretFile: c2.SecretFile})
	if k1.ID("abc") != k2.ID("abc") || k1.ID("abc") == unkeyed {
		t.Fatalf("IDs with the generated secret: %q %q (unkeyed %q)", k1.ID("abc"), k2.ID("abc"), unkeyed)
	}
	for _, c := range []Config{{Mode: Plain}, {Mode: Hashed, SecretFile: "/given"}} {
		if out, created, err := c.Generate(state); out != c || created || err != nil {
			t.Errorf("Generate(%+v) = %+v, %v, %v; want nothing generated", c, out, created, err)
		}
	}
}

func TestRedactKeepsNames(t *testing.T) {
	type entry struct {
		Keyspace, Table, Key, Summary string
	}
	type doc struct {
		ID      string
		Entries []entry
		ByTable map[string]entry
	}
	k := New(Hashed, secret, 0)
	k.Learn("shop")
	in := doc{ID: "0011", Entries: []entry{{"shop", "carts", "shop", "partition shop of shop.carts"}},
		ByTable: map[string]entry{"shop.carts": {Keyspace: "shop", Key: "shop"}}}
	out := Redact(k, in)
	tok := k.Show("shop")
	e := out.Entries[0]
	if e.Keyspace != "shop" || e.Key != tok || e.Summary != "partition "+tok+" of "+tok+".carts" || out.ID != k.ID("0011") {
		t.Errorf("redacted entry %+v, ID %q", e, out.ID)
	}
	if m, ok := out.ByTable["shop.carts"]; !ok || m.Key != tok || m.Keyspace != "shop" {
		t.Errorf("map: %+v", out.ByTable)
	}
	if in.Entries[0].Key != "shop" || in.ByTable["shop.carts"].Key != "shop" {
		t.Error("Redact changed its input")
	}
}

// TestRedactSharesWhatShowsNoKey: the parts whose type holds no string
// that can show a key (names and numbers) are the input's own, not copies;
// a part holding one is copied and redacted, and the input stays as it was.
func TestRedactSharesWhatShowsNoKey(t *testing.T) {
	type figures struct {
		Keyspace, Node string
		Bytes          int64
		Rates          []float64
	}
	type withText struct {
		Table string
		Note  string
	}
	type doc struct {
		Figures []figures
		ByNode  map[string]*figures
		Texts   []withText
		Keys    map[string][]string
	}
	k := New(Hashed, secret, 0)
	k.Learn("k1")
	in := doc{
		Figures: []figures{{"shop", "n1", 1, []float64{1, 2}}},
		ByNode:  map[string]*figures{"n1": {Keyspace: "k1", Bytes: 2}},
		Texts:   []withText{{"k1", "key k1 is large"}},
		Keys:    map[string][]string{"t": {"k1"}},
	}
	out := Redact(k, in)
	tok := k.Show("k1")
	tests := []struct {
		name  string
		share bool
		got   bool
	}{
		{"a slice of names and numbers", true, &out.Figures[0] == &in.Figures[0]},
		{"a map of pointers to names and numbers", true, out.ByNode["n1"] == in.ByNode["n1"]},
		{"a slice holding free text", false, &out.Texts[0] == &in.Texts[0]},
		{"a map of free text", false, &out.Keys["t"][0] == &in.Keys["t"][0]},
	}
	for _, tc := range tests {
		if tc.got != tc.share {
			t.Errorf("%s: shared %v, want %v", tc.name, tc.got, tc.share)
		}
	}
	if out.Texts[0].Table != "k1" || out.Texts[0].Note != "key "+tok+" is large" || out.Keys["t"][0] != tok {
		t.Errorf("redacted %+v %+v", out.Texts, out.Keys)
	}
	if in.Texts[0].Note != "key k1 is large" || in.Keys["t"][0] != "k1" || out.ByNode["n1"].Keyspace != "k1" {
		t.Errorf("input changed, or a name redacted: %+v %+v %+v", in.Texts, in.Keys, out.ByNode["n1"])
	}
}

// TestRedactWalksNamedStructs: an identity name on a field of structs (a
// heat map's Nodes) does not make their free text a name: a note quoting a
// key is scrubbed, the node names inside stay.
func TestRedactWalksNamedStructs(t *testing.T) {
	type node struct{ Node, Note string }
	type doc struct {
		Nodes []node
		Node  string
	}
	k := New(Hashed, secret, 0)
	k.Learn("k1")
	in := doc{Nodes: []node{{Node: "k1", Note: "sampled key k1"}}, Node: "k1"}
	out := Redact(k, in)
	tok := k.Show("k1")
	if got := out.Nodes[0]; got.Node != "k1" || got.Note != "sampled key "+tok || out.Node != "k1" {
		t.Errorf("redacted %+v, want the note scrubbed to %q and the node names kept", out, tok)
	}
}
