package cassandralog

import (
	"errors"
	"strings"
)

// Query is what a read's CQL text, as Cassandra prints it in its warnings
// (ReadCommand.toCQLString), says about the partition it read.
//
// 4.1 and 5.0 print "SELECT cols FROM ks.tbl WHERE k1 = lit AND k2 = lit
// [AND clustering filter] [LIMIT n] ALLOW FILTERING", values as CQL literals
// (AbstractReadQuery.toCQLString, DecoratedKey.toCQLString). 4.0 prints
// "... WHERE k1, k2 = v1, v2 [AND ...] [LIMIT n]", values unquoted in their
// text form (ReadCommand.toCQLString, DataRange.appendKeyString). A range
// read restricts token(k) instead.
type Query struct {
	Keyspace, Table string
	Where           []Restriction
	// TokenRange is true for a range read (WHERE token(...) ...): it names no single partition.
	TokenRange bool
}

// Restriction is one "columns op value" of a WHERE clause.
type Restriction struct {
	Columns []string // one column; several in 4.0's "k1, k2 = v1, v2"
	Op      string
	Value   string // a CQL literal (4.1+) or 4.0's unquoted text
	// Legacy is true for 4.0's form: Value is not a CQL literal.
	Legacy bool
}

var errNotSelect = errors.New("not a SELECT ... FROM keyspace.table")

// ParseQuery reads the keyspace, table and WHERE restrictions of a read's
// CQL text. A truncated text (warnings cut it at 512 characters) yields
// the restrictions that are complete.
func ParseQuery(q string) (Query, error) {
	var out Query
	if !strings.HasPrefix(q, "SELECT ") {
		return out, errNotSelect
	}
	from := indexOutsideQuotes(q, " FROM ")
	if from < 0 {
		return out, errNotSelect
	}
	s := &scanner{s: q, i: from + len(" FROM ")}
	ks, ok := s.ident()
	if !ok || !s.eat(".") {
		return out, errNotSelect
	}
	tbl, ok := s.ident()
	if !ok {
		return out, errNotSelect
	}
	out.Keyspace, out.Table = ks, tbl
	if !s.eat(" WHERE ") {
		return out, nil
	}
	if strings.HasPrefix(s.rest(), "token(") {
		out.TokenRange = true
		return out, nil
	}
	for {
		r, ok := s.restriction()
		if !ok {
			break
		}
		out.Where = append(out.Where, r)
		if !s.eat(" AND ") {
			break
		}
	}
	return out, nil
}

// scanner walks a query text.
type scanner struct {
	s string
	i int
}

func (s *scanner) rest() string { return s.s[s.i:] }

func (s *scanner) eat(p string) bool {
	if strings.HasPrefix(s.rest(), p) {
		s.i += len(p)
		return true
	}
	return false
}

// ident reads an identifier: [A-Za-z0-9_]+ or a "quoted" one ("" escapes ").
func (s *scanner) ident() (string, bool) {
	r := s.rest()
	if strings.HasPrefix(r, `"`) {
		var b strings.Builder
		for j := 1; j < len(r); j++ {
			if r[j] != '"' {
				b.WriteByte(r[j])
				continue
			}
			if j+1 < len(r) && r[j+1] == '"' {
				b.WriteByte('"')
				j++
				continue
			}
			s.i += j + 1
			return b.String(), b.Len() > 0
		}
		return "", false
	}
	j := 0
	for j < len(r) && isIdentByte(r[j]) {
		j++
	}
	if j == 0 {
		return "", false
	}
	s.i += j
	return r[:j], true
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

var ops = []string{" <= ", " >= ", " != ", " = ", " < ", " > ", " IN ", " CONTAINS KEY ", " CONTAINS ", " LIKE "}

// restriction reads "col op literal" (4.1+) or "c1, c2 = raw values" (4.0).
func (s *scanner) restriction() (Restriction, bool) {
	start := s.i
	var r Restriction
	for {
		c, ok := s.ident()
		if !ok {
			s.i = start
			return r, false
		}
		r.Columns = append(r.Columns, c)
		if !s.eat(", ") {
			break
		}
	}
	for _, op := range ops {
		if s.eat(op) {
			r.Op = strings.TrimSpace(op)
			break
		}
	}
	if r.Op == "" {
		s.i = start
		return r, false
	}
	valueAt := s.i
	if v, ok := s.literal(); ok && len(r.Columns) == 1 && s.atBoundary() {
		r.Value = v
		return r, true
	}
	// 4.0: the values' text, unquoted, up to the next clause.
	s.i = valueAt
	r.Legacy = true
	r.Value = s.legacyValue()
	return r, r.Value != ""
}

// atBoundary says whether the scanner stands where a restriction may end.
func (s *scanner) atBoundary() bool {
	r := s.rest()
	if r == "" {
		return true
	}
	for _, p := range []string{" AND ", " LIMIT ", " PER PARTITION LIMIT ", " ALLOW FILTERING", " ORDER BY "} {
		if strings.HasPrefix(r, p) {
			return true
		}
	}
	return false
}

// literal reads a CQL literal: quoted text (a doubled quote escapes one), a bracketed
// collection, tuple or UDT, or a bare token (number, uuid, boolean, 0x blob).
func (s *scanner) literal() (string, bool) {
	r := s.rest()
	if r == "" {
		return "", false
	}
	switch r[0] {
	case '\'':
		if j := endOfQuoted(r, 0); j > 0 {
			s.i += j
			return r[:j], true
		}
		return "", false
	case '(', '[', '{':
		if j := endOfBracketed(r); j > 0 {
			s.i += j
			return r[:j], true
		}
		return "", false
	}
	j := 0
	for j < len(r) && r[j] != ' ' && r[j] != ',' && r[j] != ')' {
		j++
	}
	if j == 0 || r[0] == '"' {
		return "", false
	}
	s.i += j
	return r[:j], true
}

// legacyValue reads 4.0's raw value text up to " AND ", " LIMIT " or the end.
func (s *scanner) legacyValue() string {
	r := s.rest()
	end := len(r)
	for _, p := range []string{" AND ", " LIMIT ", " PER PARTITION LIMIT ", " ALLOW FILTERING"} {
		if j := strings.Index(r, p); j >= 0 && j < end {
			end = j
		}
	}
	s.i += end
	return r[:end]
}

// endOfQuoted returns the index after the quote closing the one at start,
// or -1.
func endOfQuoted(r string, start int) int {
	for j := start + 1; j < len(r); j++ {
		if r[j] != '\'' {
			continue
		}
		if j+1 < len(r) && r[j+1] == '\'' {
			j++
			continue
		}
		return j + 1
	}
	return -1
}

// endOfBracketed returns the index after the bracket closing r[0], skipping
// quoted text, or -1.
func endOfBracketed(r string) int {
	depth := 0
	for j := 0; j < len(r); j++ {
		switch r[j] {
		case '\'':
			k := endOfQuoted(r, j)
			if k < 0 {
				return -1
			}
			j = k - 1
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// indexOutsideQuotes finds p in q outside '...' and "..." quoting.
func indexOutsideQuotes(q, p string) int {
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case strings.HasPrefix(q[i:], p):
			return i
		}
	}
	return -1
}
