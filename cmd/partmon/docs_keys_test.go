package main

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestDocsNameOnlyRealConfigKeys: every `section.key` a doc names, for a
// section of partmon.yml, is a key of the Config struct (or a prefix of
// one): a doc that names a key partmon does not have sends its reader to
// a configuration partmon refuses.
func TestDocsNameOnlyRealConfigKeys(t *testing.T) {
	keys := configKeys(reflect.TypeOf(Config{}), "")
	sections := map[string]bool{}
	for _, k := range keys {
		if !strings.Contains(k, ".") {
			sections[k] = true
		}
	}
	known := func(ref string) bool {
		for _, k := range keys {
			// <name> in a key path stands for any one segment (a source's name).
			pattern := "^" + strings.ReplaceAll(regexp.QuoteMeta(k), "<name>", "[a-z0-9_]+") + "$"
			if regexp.MustCompile(pattern).MatchString(ref) || strings.HasPrefix(k, ref+".") {
				return true
			}
		}
		return false
	}
	files, _ := filepath.Glob("../../docs/*.md")
	runbooks, _ := filepath.Glob("../../docs/runbooks/*.md")
	files = append(append(files, runbooks...), "../../README.md")
	ref := regexp.MustCompile("`([a-z_]+(?:\\.[a-z0-9_<>]+)+)`")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllStringSubmatch(string(data), -1) {
			if strings.HasSuffix(m[1], ".go") || strings.HasSuffix(m[1], ".yml") {
				continue // a file name
			}
			if section, _, _ := strings.Cut(m[1], "."); sections[section] && !strings.Contains(m[1], "<") && !known(m[1]) {
				t.Errorf("%s names `%s`, which is no key of partmon.yml", filepath.Base(f), m[1])
			}
		}
	}
}

// TestLogFormatsAsDocumented: docs/configuration.md's log.format row names
// exactly the formats partmon accepts.
func TestLogFormatsAsDocumented(t *testing.T) {
	data, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile("(?m)^\\| `log.format` \\|([^\n]*)$").FindStringSubmatch(string(data))
	if row == nil {
		t.Fatal("docs/configuration.md has no log.format row")
	}
	named := map[string]bool{}
	for _, m := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(row[1], -1) {
		if _, err := newLogger("info", m[1]); err == nil {
			named[m[1]] = true
		}
	}
	for _, f := range []string{"json", "logfmt", "console"} {
		if _, err := newLogger("info", f); err != nil {
			t.Fatalf("partmon refuses log.format %s: %v", f, err)
		}
		if !named[f] {
			t.Errorf("docs/configuration.md's log.format row does not name %q, which partmon accepts", f)
		}
	}
	if _, err := newLogger("info", "yaml"); err == nil {
		t.Error("an unknown log.format is accepted")
	}
}
