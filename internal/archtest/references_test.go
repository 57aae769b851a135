package archtest

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A reference is a repository path or a tracker item a doc or a comment
// names, where a reader will look for it.
type reference struct {
	file string // relative to the repository root
	line int
	text string
}

var (
	// repoPath is what looks like a file of this repository: directories
	// and a name with an extension, as docs/operations.md. A path without
	// an extension is left out: it cannot be told from prose ("up/down").
	repoPath = regexp.MustCompile(`[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.-]+)+\.(?:go|md|sh|ya?ml|json|html|xml|txt|prom|service|toml)\b`)
	// placeholder is a path's variable part written in capitals, as in
	// DIR/truth.json or pom-SERIES.xml.
	placeholder = regexp.MustCompile(`(^|[/-])(DIR|SERIES|VERSION|NAME)([/.-]|$)`)
	// trackerItem is an item of an issue tracker: an issue, PR or "#N item M".
	// One preceded by its upstream repository (owner/name issue #N) is a
	// reference a reader can follow.
	trackerItem  = regexp.MustCompile(`(?i)\b(?:issues?|PR|pull request) #?\d+|#\d+ item \d+`)
	upstreamRepo = regexp.MustCompile(`[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+ $`)
	url          = regexp.MustCompile(`[a-z]+://\S+`)
)

// upstreamPaths begin the paths of other projects that the docs and
// comments cite in those projects' own layout, beside the project's name,
// and of what make test and make build write outside the tracked tree.
var upstreamPaths = []string{
	"src/java/", "test/unit/", "test/distributed/", "conf/", "pylib/", "tools/", // Cassandra
	"api/v2/openapi.yaml",        // Alertmanager
	"examples/cassandra.yml",     // prometheus/jmx_exporter
	"api-doc/",                   // ScyllaDB's REST API
	"baselines/", "baselinesv2/", // NoSQLBench
	"docs/storage.md", // prometheus/prometheus
	"web/testdata/web_config_users_noTLS.good.yml", // exporter-toolkit
	"test-artifacts/", "bin/", ".cluster", // made by make test and make build
}

// The files that hold docs and comments: every Markdown file, and the
// comments of Go, shell, YAML and the Makefile.
func referenceSources(root string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(name, ".md"), strings.HasSuffix(name, ".go"), strings.HasSuffix(name, ".sh"),
			strings.HasSuffix(name, ".yml"), strings.HasSuffix(name, ".yaml"), name == "Makefile":
			files = append(files, path)
		case !strings.Contains(name, ".") && isScript(path):
			files = append(files, path)
		}
		return nil
	})
	return files, err
}

// isScript tells an extensionless executable script (deploy/local/cluster).
func isScript(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 2)
	n, _ := f.Read(head)
	return n == 2 && string(head) == "#!"
}

// proseOf is the part of a line a reader reads as text: the whole line of a
// Markdown file, the comment of code.
func proseOf(file, line string) string {
	switch {
	case strings.HasSuffix(file, ".md"):
		return line
	case strings.HasSuffix(file, ".go"):
		if i := strings.Index(line, "//"); i >= 0 {
			return line[i+2:]
		}
		return ""
	}
	if i := strings.Index(line, "#"); i >= 0 && !strings.HasPrefix(line, "#!") {
		return line[i+1:]
	}
	return ""
}

// references lists what the docs and comments under root name.
func references(t *testing.T, root string, find func(file, prose string) []string) []reference {
	t.Helper()
	files, err := referenceSources(root)
	if err != nil {
		t.Fatal(err)
	}
	var out []reference
	for _, path := range files {
		rel, _ := filepath.Rel(root, path)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for n := 1; sc.Scan(); n++ {
			prose := url.ReplaceAllString(proseOf(rel, sc.Text()), "")
			for _, text := range find(rel, prose) {
				out = append(out, reference{file: rel, line: n, text: text})
			}
		}
		f.Close()
	}
	return out
}

// namedPaths are the repository paths a line names.
func namedPaths(_, prose string) []string {
	var out []string
	for _, loc := range repoPath.FindAllStringIndex(prose, -1) {
		if loc[0] > 0 && strings.ContainsRune("/~$.{<", rune(prose[loc[0]-1])) {
			continue // an absolute or home path, a variable's directory, a template
		}
		p := prose[loc[0]:loc[1]]
		if isUpstream(p) || placeholder.MatchString(p) || strings.HasPrefix(p, "github.com/") {
			continue
		}
		out = append(out, p)
	}
	return out
}

func isUpstream(p string) bool {
	for _, prefix := range upstreamPaths {
		if strings.HasPrefix(p, prefix) {
			return true
		}
	}
	return false
}

// exists tells whether p names a file from the repository root or from
// the directory of the file that names it (a Markdown link is relative).
func exists(root, from, p string) bool {
	for _, candidate := range []string{filepath.Join(root, p), filepath.Join(root, filepath.Dir(from), p)} {
		if _, err := os.Stat(candidate); err == nil {
			return true
		}
	}
	return false
}

// bareName is a Go or Markdown file named without its directory
// ("pusher_test.go", "operations.md").
var bareName = regexp.MustCompile(`[A-Za-z0-9_.-]+\.(?:go|md)\b`)

// namedFiles are the bare file names a line names.
func namedFiles(_, prose string) []string {
	var out []string
	for _, loc := range bareName.FindAllStringIndex(prose, -1) {
		if loc[0] > 0 && strings.ContainsRune("/~$.{<@-", rune(prose[loc[0]-1])) || prose[loc[0]] == '_' {
			continue // part of a path, or of a longer name; "_test.go" is a suffix
		}
		out = append(out, prose[loc[0]:loc[1]])
	}
	return out
}

// TestNamedPathsExist: every repository file a doc or a comment names
// exists, so a reader sent to a test file finds it there; a Go or Markdown
// file named without its directory exists somewhere in the repository.
func TestNamedPathsExist(t *testing.T) {
	root := repoRoot(t)
	refs := references(t, root, namedPaths)
	if len(refs) < 100 {
		t.Fatalf("only %d paths named in the docs and comments: the scan is broken", len(refs))
	}
	for _, r := range refs {
		if !exists(root, r.file, r.text) {
			t.Errorf("%s:%d names %s, which does not exist", r.file, r.line, r.text)
		}
	}
	files, err := referenceSources(root)
	if err != nil {
		t.Fatal(err)
	}
	basenames := map[string]bool{}
	for _, f := range files {
		basenames[filepath.Base(f)] = true
	}
	for _, r := range references(t, root, namedFiles) {
		if !basenames[r.text] && !upstreamFiles[r.text] {
			t.Errorf("%s:%d names %s, which is nowhere in the repository", r.file, r.line, r.text)
		}
	}
}

// upstreamFiles are other projects' files cited by their bare name, and
// files the scripts write.
var upstreamFiles = map[string]bool{
	"conn.go":    true, // gocql
	"results.md": true, // scripts/bench.sh's output
}

// TestNoTrackerOutsideTheRepository: docs and comments cite no issue
// tracker the repository does not carry; the fact goes into the doc or the
// comment instead. Upstream issues named with
// their repository, and Cassandra's JIRA tickets, stay.
func TestNoTrackerOutsideTheRepository(t *testing.T) {
	refs := references(t, repoRoot(t), func(_, prose string) []string {
		var out []string
		for _, loc := range trackerItem.FindAllStringIndex(prose, -1) {
			if !upstreamRepo.MatchString(prose[:loc[0]]) {
				out = append(out, prose[loc[0]:loc[1]])
			}
		}
		return out
	})
	for _, r := range refs {
		t.Errorf("%s:%d cites %q of a tracker outside the repository", r.file, r.line, r.text)
	}
}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s", root)
	}
	return root
}
