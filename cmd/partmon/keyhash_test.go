package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/partmon/partmon/internal/keys"
)

func TestKeyHashCommand(t *testing.T) {
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("0123456789abcdef-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := keys.New(keys.Hashed, []byte("0123456789abcdef-secret"), 0)
	cases := []struct {
		args     []string
		stdin    string
		code     int
		out, err string
	}{
		{[]string{"key-hash", "--secret-file", secret}, "alice@example.org\ntenant1:2026-12-04\r\n", exitOK,
			want.Show("alice@example.org") + "\n" + want.Show("tenant1:2026-12-04") + "\n", ""},
		{[]string{"key-hash", "--secret-file", secret, "--hash-length", "8"}, "alice@example.org", exitOK,
			want.Show("alice@example.org")[:2+8] + "\n", ""},
		{[]string{"key-hash", "--secret-file", filepath.Join(t.TempDir(), "none")}, "x\n", exitUsage, "", "keys.secret_file"},
		// A key on the command line would show in ps: no argument is taken.
		{[]string{"key-hash", "--secret-file", secret, "alice@example.org"}, "", exitUsage, "", "unexpected alice@example.org"},
	}
	for _, c := range cases {
		var out, errb bytes.Buffer
		in := filepath.Join(t.TempDir(), "stdin")
		if err := os.WriteFile(in, []byte(c.stdin), 0o600); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(in)
		if err != nil {
			t.Fatal(err)
		}
		old := os.Stdin
		os.Stdin = f
		code := run(c.args, &out, &errb)
		os.Stdin = old
		f.Close()
		if code != c.code || out.String() != c.out || (c.err != "" && !strings.Contains(errb.String(), c.err)) {
			t.Errorf("partmon %v = %d, %q, %q; want %d, %q, stderr with %q", c.args, code, out.String(), errb.String(), c.code, c.out, c.err)
		}
	}
	if !strings.HasPrefix(want.Show("x"), "h:") {
		t.Errorf("hashed key %q lacks its prefix", want.Show("x"))
	}
}
