package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/partmon/partmon/collector"
)

const root = "../../.."

// TestDocsGeneratedCurrent fails when a generated region of a doc is not
// what the declarations give now.
func TestDocsGeneratedCurrent(t *testing.T) {
	changed, err := generateAll(root, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range changed {
		t.Errorf("%s: a generated region is stale: run %s", f, command)
	}
}

// TestEveryRegionUsed: each table docgen makes stands in some doc.
func TestEveryRegionUsed(t *testing.T) {
	files, err := markdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range beginLine.FindAllStringSubmatch(string(b), -1) {
			used[m[2]] = true
		}
	}
	for _, name := range regionNames() {
		if !used[name] {
			t.Errorf("no doc has the generated region %q", name)
		}
	}
}

var grantLine = regexp.MustCompile(`(?i)\bGRANT SELECT ON KEYSPACE\b`)

// TestGrantsOnlyGenerated: the grants partmon's role needs are written in
// generated regions only, never copied by hand.
func TestGrantsOnlyGenerated(t *testing.T) {
	files, err := markdownFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inside := false
		for i, line := range strings.Split(string(b), "\n") {
			switch {
			case beginLine.MatchString(line + "\n"):
				inside = true
			case strings.Contains(line, "<!-- END GENERATED: "):
				inside = false
			case grantLine.MatchString(line) && !inside:
				rel, _ := filepath.Rel(root, f)
				t.Errorf("%s:%d: a GRANT written by hand; put it in a grants or role-grants region and run %s", rel, i+1, command)
			}
		}
	}
}

func TestRewrite(t *testing.T) {
	grants := grantBlock(collector.Grants(), false)
	for _, tc := range []struct {
		name, in, want, err string
	}{
		{name: "a region is rewritten, the prose kept",
			in:   "before\n<!-- BEGIN GENERATED: grants -->\nold\n<!-- END GENERATED: grants -->\nafter\n",
			want: "before\n<!-- BEGIN GENERATED: grants; " + command + " -->\n" + grants + "<!-- END GENERATED: grants -->\nafter\n"},
		{name: "indented as its marker",
			in:   "1. x\n   <!-- BEGIN GENERATED: grants -->\n   <!-- END GENERATED: grants -->\n",
			want: "1. x\n   <!-- BEGIN GENERATED: grants; " + command + " -->\n" + indentLines(grants, "   ") + "   <!-- END GENERATED: grants -->\n"},
		{name: "no markers, no change", in: "text\n", want: "text\n"},
		{name: "an unknown region", in: "<!-- BEGIN GENERATED: nope -->\n<!-- END GENERATED: nope -->\n", err: `no generated region "nope"`},
		{name: "no end", in: "<!-- BEGIN GENERATED: grants -->\nx\n", err: "has no <!-- END GENERATED: grants --> line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := rewrite(tc.in)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			if again, _ := rewrite(got); again != got {
				t.Errorf("a second run changed it:\n%s", again)
			}
		})
	}
}

// The thresholds' meanings are the doc's: kept by key through a rewrite,
// an escaped | included; a threshold the doc lacks gets an empty one.
func TestThresholdMeaningsKept(t *testing.T) {
	old := "| key | default | meaning |\n|---|---|---|\n" +
		"| `thresholds.top_k` | `3` | Keys kept \\| per table. |\n" +
		"| `thresholds.gone` | `1` | A threshold no more. |\n"
	got, err := thresholdsTable(old)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "| `thresholds.top_k` | `10` |  | Keys kept \\| per table. |\n") {
		t.Errorf("top_k's row lost its meaning or kept the old default:\n%s", got)
	}
	if strings.Contains(got, "gone") {
		t.Error("a threshold the analyzer lacks stayed in the table")
	}
	if !strings.Contains(got, "| `thresholds.stale_after` | `15m` |") {
		t.Errorf("stale_after missing or its default not a duration:\n%s", got)
	}
	again, _ := thresholdsTable(got)
	if again != got {
		t.Error("a second run changed the table")
	}
}

func TestThresholdDefaults(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{52428800, "50 MiB"}, {1 << 30, "1 GiB"}, {3072, "3 KiB"}, {1536, "1536 bytes"}, {1000, "1000 bytes"},
	} {
		if got := binarySize(tc.v); got != tc.want {
			t.Errorf("binarySize(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}

// A new source is its declaration: from it alone, without an edit of any
// doc, it gets its row in configuration.md's table and sources.md's index,
// and a keyspace it is the first to read joins every GRANT block.
func TestNewSourceNeedsNoDocEdit(t *testing.T) {
	decls := append(collector.Declarations(), collector.Declaration{Name: "pending_hints", Scope: collector.NodeScope,
		Facts: collector.Facts{Reads: "system_views.pending_hints", Schedule: "@every 5m",
			Gate: collector.Gate{Cassandra: "4.1", Table: "system_views.pending_hints"}, Grants: []string{"system_views"}}})
	for _, tc := range []struct{ table, row string }{
		{sourcesTable(decls), "| `pending_hints` | `system_views.pending_hints` | Cassandra 4.1+ | `@every 5m` | on |\n"},
		{sourceIndexTable(decls), "| `pending_hints` | each node | – | ✔ | ✔ | – | `system_views` |\n"},
	} {
		if !strings.HasSuffix(tc.table, tc.row) {
			t.Errorf("the new source's row is not\n%s in\n%s", tc.row, tc.table)
		}
	}
	if block := grantBlock(append(collector.Grants(), "system_auth"), false); !strings.Contains(block, "GRANT SELECT ON KEYSPACE system_auth TO partmon;\n") {
		t.Errorf("a new keyspace is not granted:\n%s", block)
	}
}
