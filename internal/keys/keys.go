// Package keys decides how a partition key leaves partmon: as it is
// (plain), as a keyed hash (hashed) or not at all (omitted). A partition key
// is the user's data (an e-mail, an account id, a session token); every
// output partmon has (metrics, pushed alerts, the API, the status page,
// logs, the one-shot report, the state file) shows keys only through a
// Keyer. docs/operations.md "Keys and privacy" says what each mode protects.
package keys

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"sync"
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

// Validate says what is wrong with c, naming the field.
func (c Config) Validate() error {
	switch c.Mode {
	case Plain, Omitted, "":
	case Hashed:
		if c.SecretFile == "" {
			return fmt.Errorf("keys.secret_file is required with keys.mode hashed (a file of at least %d bytes, e.g. head -c 32 /dev/urandom | base64 > FILE)", minSecretBytes)
		}
	default:
		return fmt.Errorf("keys.mode: want plain, hashed or omitted, got %q", c.Mode)
	}
	if c.HashLength != 0 && (c.HashLength < MinHashLength || c.HashLength > MaxHashLength) {
		return fmt.Errorf("keys.hash_length: want %d to %d hex digits, got %d", MinHashLength, MaxHashLength, c.HashLength)
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
	known map[string]bool // keys learned, the current generation
	older map[string]bool // the generation before: kept while the current fills
	forms *matcher        // every encoding of known and older keys; nil when stale
}

// maxKnown bounds each generation of learned keys.
const maxKnown = 20000

// Load builds the Keyer c describes, reading its secret file.
func Load(c Config) (*Keyer, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	var secret []byte
	if c.SecretFile != "" && c.Mode != Plain && c.Mode != "" {
		b, err := os.ReadFile(c.SecretFile)
		if err != nil {
			return nil, fmt.Errorf("keys.secret_file: %w", err)
		}
		b = []byte(strings.TrimRight(string(b), "\r\n"))
		if len(b) < minSecretBytes {
			return nil, fmt.Errorf("keys.secret_file %s: %d bytes, want at least %d (e.g. head -c 32 /dev/urandom | base64 > FILE)", c.SecretFile, len(b), minSecretBytes)
		}
		secret = b
	}
	return New(c.Mode, secret, c.HashLength), nil
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
// length hex digits of HMAC-SHA-256(secret, key). Without a secret (omitted
// mode may run without one) it is SHA-256 of the key, which names the key
// to anyone who can guess it: only finding IDs use it then, never output.
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
	return k.digest("finding-id", id)
}
