// Package keys decides how a partition key leaves partmon: as it is
// (plain), as a keyed hash (hashed) or not at all (omitted). A partition key
// is the user's data (an e-mail, an account id, a session token); every
// output partmon has (metrics, pushed alerts, the API, the status page,
// logs, the one-shot report, the state file) shows keys only through a
// Keyer. docs/operations.md "Keys and privacy" says what each mode protects.
package keys

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"
)

// Mode is how keys are shown.
type Mode string

const (
	Plain   Mode = "plain"
	Hashed  Mode = "hashed"
	Omitted Mode = "omitted"
)

// Prefix marks a hashed key, so a reader knows it is not the key itself.
const Prefix = "h:"

// OmittedKey stands where a key was in omitted mode: the finding keeps a
// key, so a reader (and the alert pusher, which pushes key-level findings)
// knows there is one.
const OmittedKey = "(key omitted)"

// Hash lengths in hex digits: the default, and the bounds a config may set.
const (
	DefaultHashLength = 16
	MinHashLength     = 8
	MaxHashLength     = 64
)

// minSecretBytes: a shorter secret is guessable by itself.
const minSecretBytes = 16

// Config is the `keys:` section of the configuration file.
type Config struct {
	Mode       Mode   `yaml:"mode"`
	SecretFile string `yaml:"secret_file"`
	HashLength int    `yaml:"hash_length"`
}

// FieldError is what is wrong with one key of the keys: section, named by
// its YAML path; the config's report places it at the key's line
// (internal/configerr's Pathed, which this package of the standard library
// alone does not import).
type FieldError struct{ Path, Msg string }

func (e *FieldError) Error() string                   { return e.Path + ": " + e.Msg }
func (e *FieldError) ConfigField() (path, msg string) { return e.Path, e.Msg }

// Validate says what is wrong with c, naming the field.
func (c Config) Validate() error {
	switch c.Mode {
	case Plain, Hashed, Omitted, "":
	default:
		return &FieldError{"keys.mode", fmt.Sprintf("want plain, hashed or omitted, got %q", c.Mode)}
	}
	if c.HashLength != 0 && (c.HashLength < MinHashLength || c.HashLength > MaxHashLength) {
		return &FieldError{"keys.hash_length", fmt.Sprintf("want %d to %d hex digits, got %d", MinHashLength, MaxHashLength, c.HashLength)}
	}
	return nil
}

// Keyer shows keys the way its mode says, and scrubs the keys it has
// learned from free text. The zero Keyer and a nil one are plain.
type Keyer struct {
	mode   Mode
	secret []byte // nil in plain mode, and in omitted mode without a secret
	length int

	mu    sync.RWMutex
	known map[string]*learnedKey // keys learned
	calls uint64                 // Learn calls so far: a key's seen is the last that named it
	limit int                    // the most keys kept: maxKnown, or more for larger calls
	forms *matcher               // every encoding of every known key; nil when stale

	idMu sync.Mutex
	ids  map[string]string // ID's digests, bounded by maxIDs
}

// learnedKey is a learned key's Show and its encodings, computed once
// when it is learned (an HMAC each in hashed mode), and the Learn call
// that last named it.
type learnedKey struct {
	shown string
	forms []string
	seen  uint64
}

// maxKnown is the least number of learned keys kept. A call that names
// more (a snapshot of 30 nodes names 50,000 keys: 1,000 log keys a node,
// the sampled and the top keys) raises the bound to twice its keys, so
// that a steady key set is never trimmed and keeps its matcher, and a
// churning one holds at most two snapshots' worth (~1 KB a key with its
// matcher's share).
const maxKnown = 20000

// maxIDs bounds the finding IDs whose digest is kept: a report has one a
// finding (18,838 at 30 nodes × 10,000 tables), the same from cycle to
// cycle while the problems last.
const maxIDs = 1 << 16

// Load builds the Keyer c describes, reading its secret file. Keys hidden
// without a secret file get a random secret of this process's own (see
// Generate for one that outlives it): hashed keys and finding IDs are keyed
// always, since everything but the key in an ID's input is public.
func Load(c Config) (*Keyer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var secret []byte
	if c.SecretFile == "" && c.Mode != Plain && c.Mode != "" {
		b := make([]byte, secretBytes)
		if _, err := rand.Read(b); err != nil {
			return nil, fmt.Errorf("keys: generating a secret: %w", err)
		}
		secret = []byte(base64.StdEncoding.EncodeToString(b))
	}
	if c.SecretFile != "" && c.Mode != Plain && c.Mode != "" {
		b, err := os.ReadFile(c.SecretFile)
		if err != nil {
			return nil, &FieldError{"keys.secret_file", err.Error()}
		}
		b = []byte(strings.TrimRight(string(b), "\r\n"))
		if len(b) < minSecretBytes {
			return nil, &FieldError{"keys.secret_file", fmt.Sprintf("%s: %d bytes, want at least %d (e.g. head -c 32 /dev/urandom | base64 > FILE)", c.SecretFile, len(b), minSecretBytes)}
		}
		secret = b
	}
	return New(c.Mode, secret, c.HashLength), nil
}

// secretBytes is the randomness of a generated secret.
const secretBytes = 32

// GeneratedSecretName is the file Generate writes beside the state file.
const GeneratedSecretName = "partmon-keys.secret"

// Hides is true unless c shows keys as they are.
func (c Config) Hides() bool { return c.Mode != Plain && c.Mode != "" }

// Generated says where a secret is kept when keys are hidden and
// keys.secret_file is not set: beside stateFile, or nowhere ("") without
// one (Load then keys the process with a secret of its own).
func (c Config) Generated(stateFile string) string {
	if c.SecretFile != "" || c.Mode == Plain || c.Mode == "" || stateFile == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(stateFile), GeneratedSecretName)
}

// Generate sets c.SecretFile to the secret kept beside stateFile (see
// Generated), writing a new one (mode 0600) when none is there; created says
// it did. c is returned unchanged when it needs no generated secret.
func (c Config) Generate(stateFile string) (out Config, created bool, err error) {
	path := c.Generated(stateFile)
	if path == "" {
		return c, false, nil
	}
	c.SecretFile = path
	b := make([]byte, secretBytes)
	if _, err := rand.Read(b); err != nil {
		return c, false, fmt.Errorf("keys: generating a secret: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return c, false, nil // kept from an earlier start; Load checks it
	}
	if err != nil {
		return c, false, fmt.Errorf("keys: writing a generated secret: %w", err)
	}
	_, err = f.WriteString(base64.StdEncoding.EncodeToString(b) + "\n")
	if err = errors.Join(err, f.Sync(), f.Close()); err != nil {
		_ = os.Remove(path)
		return c, false, fmt.Errorf("keys: writing a generated secret %s: %w", path, err)
	}
	return c, true, nil
}

// New builds a Keyer; length 0 is DefaultHashLength. A trailing newline of
// the secret is the caller's to trim (Load does).
func New(mode Mode, secret []byte, length int) *Keyer {
	if mode == "" {
		mode = Plain
	}
	if length == 0 {
		length = DefaultHashLength
	}
	return &Keyer{mode: mode, secret: secret, length: length}
}

// Mode is the Keyer's mode (plain for a nil Keyer).
func (k *Keyer) Mode() Mode {
	if k == nil || k.mode == "" {
		return Plain
	}
	return k.mode
}

// Hides is true unless keys are shown as they are.
func (k *Keyer) Hides() bool { return k.Mode() != Plain }

// Token is key's hash as hashed mode shows it: Prefix and the first
// length hex digits of HMAC-SHA-256(secret, key). A Keyer from Load hiding
// keys always has a secret; a Keyer built by New without one (tests) uses
// SHA-256, which names the key to anyone who can guess it.
func (k *Keyer) Token(key string) string {
	return Prefix + k.digest("key", key)
}

// digest is HMAC-SHA-256(secret, s) for a key (so that any HMAC tool
// reproduces a hashed key: docs/operations.md), with the domain prefixed
// for anything else; SHA-256 of the prefixed input without a secret.
func (k *Keyer) digest(domain, s string) string {
	in := "partmon-" + domain + "\x00" + s
	var sum []byte
	switch {
	case k != nil && k.secret != nil && domain == "key":
		in = s
		fallthrough
	case k != nil && k.secret != nil:
		m := hmac.New(sha256.New, k.secret)
		m.Write([]byte(in))
		sum = m.Sum(nil)
	default:
		h := sha256.Sum256([]byte(in))
		sum = h[:]
	}
	n := DefaultHashLength
	if k != nil && k.length > 0 {
		n = k.length
	}
	return hex.EncodeToString(sum)[:n]
}

// Show is what partmon shows for key: the key, its Token, or OmittedKey.
// An empty key stays empty (there is none to show).
func (k *Keyer) Show(key string) string {
	if key == "" {
		return ""
	}
	switch k.Mode() {
	case Hashed:
		k.mu.RLock()
		e := k.known[key]
		k.mu.RUnlock()
		if e != nil {
			return e.shown
		}
		return k.Token(key)
	case Omitted:
		return OmittedKey
	}
	return key
}

// ID is a finding ID as shown: unchanged in plain mode; else a digest of
// it (an ID of a key's problem is made from the key, and an unkeyed hash
// of a guessable key reveals it). The same ID gives the same digest in
// every process with the same secret, so sidecars still fold one problem.
func (k *Keyer) ID(id string) string {
	if id == "" || !k.Hides() {
		return id
	}
	k.idMu.Lock()
	d, ok := k.ids[id]
	k.idMu.Unlock()
	if ok {
		return d
	}
	d = k.digest("finding-id", id)
	k.idMu.Lock()
	if k.ids == nil || len(k.ids) >= maxIDs {
		k.ids = make(map[string]string)
	}
	k.ids[id] = d
	k.idMu.Unlock()
	return d
}

// logJSON is s as a zap JSON log line writes it (zapcore's
// safeAppendStringLike): `\` and `"` escaped, \n \r \t, other bytes below
// 0x20 as \u00xx, invalid UTF-8 as \ufffd, and nothing else, where
// encoding/json also escapes & < > and U+2028/2029; a key holding one of
// those and a quote was written to the log in a form the scrub did not know.
func logJSON(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteString(`\ufffd`)
			} else {
				b.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		switch {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteByte(c)
		}
		i++
	}
	return b.String()
}
