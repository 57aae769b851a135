package main

import (
	"fmt"
	"io"

	"github.com/alecthomas/kingpin/v2"

	"github.com/partmon/partmon/internal/keys"
)

// keyHashFlags: `partmon key-hash` prints what partmon shows for a key in
// hashed mode, so an operator who knows a key can find it in partmon's
// outputs (docs/operations.md "Keys and privacy").
type keyHashFlags struct {
	secretFile string
	length     int
	values     []string
}

func (k *keyHashFlags) register(cmd *kingpin.CmdClause) {
	cmd.Flag("secret-file", "The file of keys.secret_file.").Required().StringVar(&k.secretFile)
	cmd.Flag("hash-length", "keys.hash_length: hex digits shown.").Default(fmt.Sprint(keys.DefaultHashLength)).IntVar(&k.length)
	cmd.Arg("value", "Partition key as partmon prints it (Cassandra's text form; a key of several columns joined by ':', e.g. tenant1:2026-12-04).").
		Required().StringsVar(&k.values)
}

func (k *keyHashFlags) run(stdout, stderr io.Writer) int {
	keyer, err := keys.Load(keys.Config{Mode: keys.Hashed, SecretFile: k.secretFile, HashLength: k.length})
	if err != nil {
		fmt.Fprintf(stderr, "partmon: %v\n", err)
		return exitUsage
	}
	for _, v := range k.values {
		fmt.Fprintln(stdout, keyer.Show(v))
	}
	return exitOK
}
