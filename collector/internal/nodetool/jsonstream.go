package nodetool

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Helpers to walk a JSON document token by token with encoding/json's
// Decoder, so that only the value being decoded is held in memory.

// readObject reads the object whose '{' comes next, calling member for each
// key with the decoder at the key's value; member must consume that value.
func readObject(dec *json.Decoder, member func(key string) error) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	return readMembers(dec, member)
}

// readMembers reads the members of an object whose '{' was read, and its '}'.
func readMembers(dec *json.Decoder, member func(key string) error) error {
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return unexpectedEOF(err)
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("object key %v is not a string", tok)
		}
		if err := member(key); err != nil {
			return err
		}
	}
	return expectDelim(dec, '}')
}

// expectDelim reads the next token and fails unless it is d.
func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return unexpectedEOF(err)
	}
	if tok != d {
		return fmt.Errorf("got %v, want %q", tok, d)
	}
	return nil
}

// skipValue reads and drops the next value, token by token.
func skipValue(dec *json.Decoder) error {
	tok, err := dec.Token()
	if err != nil {
		return unexpectedEOF(err)
	}
	return skipRest(dec, tok)
}

// skipRest drops the rest of the value whose first token was tok.
func skipRest(dec *json.Decoder, tok json.Token) error {
	depth := 0
	for {
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
		var err error
		if tok, err = dec.Token(); err != nil {
			return unexpectedEOF(err)
		}
	}
}

// unexpectedEOF is err, with an end of input inside a value said as such.
func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
