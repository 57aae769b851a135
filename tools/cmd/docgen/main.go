// Command docgen rewrites the generated regions of the repository's
// Markdown files from what the code declares: the collector's sources and
// the grants they need (collector.Declarations, collector.Grants), the
// analyzer's kinds (analyzer.Kinds, analyzer.KindOf) and thresholds
// (analyzer.DefaultThresholds().Named()).
//
// A region is the text between
//
//	<!-- BEGIN GENERATED: NAME; go generate ./tools/cmd/docgen -->
//	<!-- END GENERATED: NAME -->
//
// and everything outside the markers is left as written. Run it with
//
//	go generate ./tools/cmd/docgen
//
// TestDocsGeneratedCurrent fails, naming that command, when a region is stale.
package main

//go:generate go run . -root ../../..

import (
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	root := flag.String("root", ".", "the repository's root")
	flag.Parse()
	changed, err := generateAll(*root, true)
	if err != nil {
		fmt.Fprintln(os.Stderr, "docgen:", err)
		os.Exit(1)
	}
	for _, f := range changed {
		fmt.Println("docgen: rewrote", f)
	}
}

// generateAll rewrites the regions of every Markdown file under root and
// returns the files whose text changed (written only when write is set).
func generateAll(root string, write bool) ([]string, error) {
	files, err := markdownFiles(root)
	if err != nil {
		return nil, err
	}
	var changed []string
	for _, f := range files {
		old, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if !strings.Contains(string(old), beginPrefix) {
			continue
		}
		rel, _ := filepath.Rel(root, f)
		text, err := rewrite(string(old))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		if text == string(old) {
			continue
		}
		changed = append(changed, rel)
		if write {
			if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
				return nil, err
			}
		}
	}
	return changed, nil
}

// markdownFiles are the *.md files under root, outside hidden directories,
// test data and build output.
func markdownFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || name == "test-artifacts") {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".md") {
			out = append(out, path)
		}
		return nil
	})
	return out, err
}
