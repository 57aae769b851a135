package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/alecthomas/kingpin/v2"

	"github.com/partmon/partmon/internal/keys"
)

// keyHashFlags: `partmon key-hash` prints what partmon shows for a key in
// hashed mode, so an operator who knows a key can find it in partmon's
// outputs (docs/operations.md "Keys and privacy"). Keys are read from
// standard input, one a line: an argument would show in ps and
// /proc/PID/cmdline to every user of the machine.
type keyHashFlags struct {
	secretFile string
	length     int
	stdin      io.Reader // os.Stdin unless a test sets it
}

func (k *keyHashFlags) register(cmd *kingpin.CmdClause) {
	cmd.Flag("secret-file", "The file of keys.secret_file.").Required().StringVar(&k.secretFile)
	cmd.Flag("hash-length", "keys.hash_length: hex digits shown.").Default(fmt.Sprint(keys.DefaultHashLength)).IntVar(&k.length)
}

// maxKeyHashInput bounds what key-hash reads: keys, not a data set.
const maxKeyHashInput = 16 << 20

func (k *keyHashFlags) run(stdout, stderr io.Writer) int {
	keyer, err := keys.Load(keys.Config{Mode: keys.Hashed, SecretFile: k.secretFile, HashLength: k.length})
	if err != nil {
		fmt.Fprintf(stderr, "partmon: %v\n", err)
		return exitUsage
	}
	in := k.stdin
	if in == nil {
		in = os.Stdin
	}
	sc := bufio.NewScanner(io.LimitReader(in, maxKeyHashInput))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if v := strings.TrimSuffix(sc.Text(), "\r"); v != "" {
			fmt.Fprintln(stdout, keyer.Show(v))
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintf(stderr, "partmon: key-hash: reading keys from standard input: %v\n", err)
		return exitUsage
	}
	return exitOK
}
