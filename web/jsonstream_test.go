package web

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/tools/reporttest"
)

// selfQuoted encodes itself only through its pointer: json.Marshal uses
// that method on a field reached through a pointer.
type selfQuoted struct{ S string }

func (s *selfQuoted) MarshalJSON() ([]byte, error) { return json.Marshal("<" + s.S + ">") }

// TestWriteCompactJSON holds writeCompactJSON to json.Marshal, byte for
// byte, on the reports the API serves and on the cases where a field's
// JSON could differ from the field encoded alone.
func TestWriteCompactJSON(t *testing.T) {
	large := reporttest.Large(3 * chunk)
	empty := &analyzer.Report{Findings: []finding.Finding{}, Notes: []string{}}
	type tagged struct {
		Plain    []int             `json:"plain"`
		Omitted  []int             `json:"omitted,omitempty"`
		Nil      []int             `json:"nil"`
		Bytes    []byte            `json:"bytes"`
		Hidden   string            `json:"-"`
		Dash     string            `json:"-,"` //nolint:staticcheck // SA5008: a field named "-" is the case under test
		Untagged float64           // its Go name
		Ptr      *int              `json:"ptr,omitempty"`
		Map      map[string]int    `json:"map,omitempty"`
		Quoted   selfQuoted        `json:"quoted"`
		Quotes   []selfQuoted      `json:"quotes"`
		When     time.Time         `json:"when"`
		HTML     string            `json:"html"`
		Nested   map[string][]bool `json:"nested"`
	}
	many := make([]int, 2*chunk+1)
	for i := range many {
		many[i] = i
	}
	quotes := make([]selfQuoted, chunk+3)
	tests := []struct {
		name string
		v    any
	}{
		{"the fixture cluster's report", reporttest.Cluster()},
		{"a report of more table nodes than a chunk", large},
		{"a report of empty and nil lists", empty},
		{"the findings", findingsResponse{Cluster: "demo", Findings: large.Findings, Problems: large.Problems, Count: len(large.Findings)}},
		{"an empty struct", struct{}{}},
		{"tags, options and marshalers", &tagged{Plain: many, Bytes: []byte("abc"), Hidden: "x", Dash: "y", Untagged: 1.5,
			Quoted: selfQuoted{"q"}, Quotes: quotes, HTML: "<a&b>", Nested: map[string][]bool{"a": {true}}}},
		{"a struct value, not a pointer", tagged{Quoted: selfQuoted{"q"}}},
		{"not a struct", many},
		{"a nil pointer", (*analyzer.Report)(nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want, err := json.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			if err := writeCompactJSON(&got, tc.v); err != nil {
				t.Fatal(err)
			}
			if got.String() != string(want)+"\n" {
				t.Errorf("differs from json.Marshal:\n got %.600s\nwant %.600s", got.String(), want)
			}
		})
	}
	if n := len(large.TableNodes); n <= chunk {
		t.Fatalf("the large report has %d table nodes, not more than a chunk", n)
	}
	if !strings.Contains(reportJSON(t, large), `"table_nodes":[{`) {
		t.Error("the large report's table nodes are missing")
	}
}

func reportJSON(t *testing.T, r *analyzer.Report) string {
	var b bytes.Buffer
	if err := writeCompactJSON(&b, r); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
