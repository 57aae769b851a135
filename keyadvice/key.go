// Package keyadvice judges a table's partition key and candidate keys from
// a bounded sample of its own rows (model.KeySample): distinct partitions
// for the whole table with an interval, rows and bytes per partition, the
// most frequent values, time columns' order and today's writes, and the
// time bucket width that keeps partitions under the warning thresholds.
package keyadvice

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/partmon/partmon/model"
)

// Key is a primary key as CQL writes it: "(a, b)" is partition a and
// clustering b, "((a, bucket(ts, 1d)), ts)" partitions by a and ts's day.
type Key struct {
	Partition  []Term
	Clustering []string
}

// Term is one partition key column, or a time column's bucket of Width.
type Term struct {
	Column string
	Width  time.Duration // 0: the column's value itself
}

func (t Term) String() string {
	if t.Width == 0 {
		return t.Column
	}
	return fmt.Sprintf("bucket(%s, %s)", t.Column, widthText(t.Width))
}

func (k Key) String() string {
	parts := make([]string, len(k.Partition))
	for i, t := range k.Partition {
		parts[i] = t.String()
	}
	pk := strings.Join(parts, ", ")
	if len(k.Partition) > 1 {
		pk = "(" + pk + ")"
	}
	return "(" + strings.Join(append([]string{pk}, k.Clustering...), ", ") + ")"
}

// CurrentKey is the sampled table's own primary key.
func CurrentKey(cols []model.SampleColumn) Key {
	var k Key
	for _, c := range cols {
		switch c.Kind {
		case model.ColumnPartitionKey:
			k.Partition = append(k.Partition, Term{Column: c.Name})
		case model.ColumnClustering:
			k.Clustering = append(k.Clustering, c.Name)
		}
	}
	return k
}

// ParseKey reads a candidate key. A bare column list without inner
// parentheses, "(a, b)", is partition a and clustering b, as in CQL.
func ParseKey(s string) (Key, error) {
	p := &keyParser{src: s}
	k, err := p.key()
	if err == nil && p.peek() != 0 {
		err = fmt.Errorf("unexpected %q after the key", s[p.i:])
	}
	if err != nil {
		return Key{}, fmt.Errorf("key %q: %w (write it as CQL's PRIMARY KEY: \"(a, b)\" or \"((a, bucket(ts, 1d)), ts)\")", s, err)
	}
	return k, nil
}

type keyParser struct {
	src string
	i   int
}

func (p *keyParser) peek() byte {
	for p.i < len(p.src) && p.src[p.i] == ' ' {
		p.i++
	}
	if p.i == len(p.src) {
		return 0
	}
	return p.src[p.i]
}

func (p *keyParser) expect(c byte) error {
	if p.peek() != c {
		return fmt.Errorf("want %q at offset %d", c, p.i)
	}
	p.i++
	return nil
}

func (p *keyParser) ident() (string, error) {
	p.peek()
	j := p.i
	for p.i < len(p.src) && (p.src[p.i] == '_' || unicode.IsLetter(rune(p.src[p.i])) || unicode.IsDigit(rune(p.src[p.i]))) {
		p.i++
	}
	if j == p.i {
		return "", fmt.Errorf("want a column name at offset %d", j)
	}
	return strings.ToLower(p.src[j:p.i]), nil
}

func (p *keyParser) key() (Key, error) {
	var k Key
	if p.peek() != '(' {
		t, err := p.term()
		return Key{Partition: []Term{t}}, err
	}
	p.i++
	if p.peek() == '(' {
		p.i++
		for {
			t, err := p.term()
			if err != nil {
				return k, err
			}
			k.Partition = append(k.Partition, t)
			if p.peek() != ',' {
				break
			}
			p.i++
		}
		if err := p.expect(')'); err != nil {
			return k, err
		}
	} else {
		t, err := p.term()
		if err != nil {
			return k, err
		}
		k.Partition = []Term{t}
	}
	for p.peek() == ',' {
		p.i++
		c, err := p.ident()
		if err != nil {
			return k, err
		}
		k.Clustering = append(k.Clustering, c)
	}
	return k, p.expect(')')
}

func (p *keyParser) term() (Term, error) {
	name, err := p.ident()
	if err != nil || name != "bucket" || p.peek() != '(' {
		return Term{Column: name}, err
	}
	p.i++
	col, err := p.ident()
	if err != nil {
		return Term{}, err
	}
	if err := p.expect(','); err != nil {
		return Term{}, err
	}
	p.peek()
	j := p.i
	for p.i < len(p.src) && p.src[p.i] != ')' && p.src[p.i] != ' ' {
		p.i++
	}
	w, err := parseWidth(p.src[j:p.i])
	if err != nil {
		return Term{}, err
	}
	return Term{Column: col, Width: w}, p.expect(')')
}

// parseWidth reads a bucket width: Go's durations, and "d" for days.
func parseWidth(s string) (time.Duration, error) {
	var w time.Duration
	var err error
	if n, ok := strings.CutSuffix(s, "d"); ok {
		w, err = time.ParseDuration(n + "h")
		w *= 24
	} else {
		w, err = time.ParseDuration(s)
	}
	if err != nil || w <= 0 {
		return 0, fmt.Errorf("bucket width %q is not a positive duration such as 1h or 1d", s)
	}
	return w, nil
}

func widthText(w time.Duration) string {
	if w%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", w/(24*time.Hour))
	}
	s := strings.TrimSuffix(w.String(), "0s")
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// Check holds k to the sampled table: every column exists, has a native
// type a key may have, and a bucket is over a timestamp or date column.
func (k Key) Check(cols []model.SampleColumn, primitive func(string) bool) error {
	seen := map[string]bool{}
	names := append([]string(nil), k.Clustering...)
	for _, t := range k.Partition {
		names = append(names, t.Column)
	}
	for i, n := range names {
		j := slices.IndexFunc(cols, func(c model.SampleColumn) bool { return c.Name == n })
		if j < 0 {
			return fmt.Errorf("key %s names column %q, which the table does not have (its columns: %s)", k, n, columnList(cols))
		}
		c := cols[j]
		if !primitive(c.Type) {
			return fmt.Errorf("key %s: column %q is of type %s, which cannot be a key column (only native types can)", k, n, c.Type)
		}
		if i >= len(k.Clustering) && k.Partition[i-len(k.Clustering)].Width > 0 && !c.Time {
			return fmt.Errorf("key %s buckets column %q, of type %s: only a timestamp or date can be bucketed", k, n, c.Type)
		}
		if seen[n] && i < len(k.Clustering) {
			return fmt.Errorf("key %s names column %q twice", k, n)
		}
		seen[n] = true
	}
	return nil
}

func columnList(cols []model.SampleColumn) string {
	n := make([]string, len(cols))
	for i, c := range cols {
		n[i] = c.Name
	}
	return strings.Join(n, ", ")
}
