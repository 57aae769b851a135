package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/partmon/partmon/collector"
)

// configKeys lists every key path of the YAML config, from the struct tags:
// "collector.tls.ca_file", "thresholds.stale_after", ...
func configKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
		if tag == "" || tag == "-" || !f.IsExported() {
			continue
		}
		path := tag
		if prefix != "" {
			path = prefix + "." + tag
		}
		keys = append(keys, path)
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Map || ft.Kind() == reflect.Slice {
			if ft.Kind() == reflect.Map {
				path += ".<name>"
			}
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Struct && ft != reflect.TypeOf(time.Time{}) {
			keys = append(keys, configKeys(ft, path)...)
		}
	}
	return keys
}

// TestConfigurationDocMatchesCode keeps docs/configuration.md and the Config
// struct in step: every key is documented, and every documented key exists.
func TestConfigurationDocMatchesCode(t *testing.T) {
	doc, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	code := configKeys(reflect.TypeOf(Config{}), "")
	inCode := map[string]bool{}
	for _, k := range code {
		inCode[k] = true
	}
	// Documented keys are the first cell of a table row, `| `key.path` |`,
	// starting with a top-level section.
	sections := map[string]bool{}
	for _, k := range code {
		if !strings.Contains(k, ".") {
			sections[k] = true
		}
	}
	documented := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9_.<>]+)` \\|").FindAllSubmatch(doc, -1) {
		if key := string(m[1]); sections[strings.Split(key, ".")[0]] {
			documented[key] = true
		}
	}
	// Every collector source is listed in the sources table.
	for _, name := range collector.SourceNames() {
		if !regexp.MustCompile("(?m)^\\|[^\n]*`" + regexp.QuoteMeta(name) + "`[^\n]*\\|").Match(doc) {
			t.Errorf("docs/configuration.md does not list the source %q", name)
		}
	}
	var missing, unknown []string
	for _, k := range code {
		if !documented[k] {
			missing = append(missing, k)
		}
	}
	for k := range documented {
		if !inCode[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	if len(missing) > 0 {
		t.Errorf("docs/configuration.md lacks these keys:\n  %s", strings.Join(missing, "\n  "))
	}
	if len(unknown) > 0 {
		t.Errorf("docs/configuration.md documents keys the code does not have:\n  %s", strings.Join(unknown, "\n  "))
	}
}

// TestExampleConfigsAreValid checks the configs shipped in deploy/.
func TestExampleConfigsAreValid(t *testing.T) {
	for _, path := range []string{"../../deploy/partmon.yml", "../../deploy/partmon-demo.yml"} {
		t.Run(path, func(t *testing.T) {
			if _, err := loadConfig(path); err != nil {
				t.Error(err)
			}
		})
	}
}

// yamlBlock is one fenced ```yaml block of a Markdown file.
type yamlBlock struct {
	file string
	line int // of the opening fence
	text string
}

var fence = regexp.MustCompile("^( *)```(\\S*)")

// yamlBlocks lists the ```yaml (or ```yml) blocks of a Markdown file, with
// a list item's indentation removed.
func yamlBlocks(t *testing.T, path string) []yamlBlock {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []yamlBlock
	var cur *yamlBlock
	indent := ""
	for i, line := range strings.Split(string(data), "\n") {
		m := fence.FindStringSubmatch(line)
		switch {
		case m != nil && cur != nil:
			out = append(out, *cur)
			cur = nil
		case m != nil && (m[2] == "yaml" || m[2] == "yml"):
			cur, indent = &yamlBlock{file: path, line: i + 1}, m[1]
		case m != nil: // another language: skip to its closing fence
			cur = &yamlBlock{file: "-"}
		case cur != nil:
			cur.text += strings.TrimPrefix(line, indent) + "\n"
		}
	}
	return slices.DeleteFunc(out, func(b yamlBlock) bool { return b.file == "-" })
}

// isPartmonConfig tells a partmon config (or a part of one) from the other
// YAML the docs show (cassandra.yaml, Prometheus): its top-level keys
// include a section of partmon's config.
func isPartmonConfig(t *testing.T, text string) bool {
	var top map[string]any
	if err := yaml.Unmarshal([]byte(text), &top); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, text)
	}
	sections := map[string]bool{}
	for _, k := range configKeys(reflect.TypeOf(Config{}), "") {
		if !strings.Contains(k, ".") {
			sections[k] = true
		}
	}
	for k := range top {
		if sections[k] {
			return true
		}
	}
	return false
}

// TestDocYAMLBlocksAreValidConfigs: every partmon config a reader copies
// from README.md or docs/ passes check-config. A block that leaves out
// collector.hosts (a part of a config) is checked as `--hosts` would
// complete it; README's example must be whole.
func TestDocYAMLBlocksAreValidConfigs(t *testing.T) {
	docs, err := filepath.Glob("../../docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]int{}
	for _, path := range append([]string{"../../README.md"}, docs...) {
		for _, b := range yamlBlocks(t, path) {
			if !isPartmonConfig(t, b.text) {
				continue
			}
			name := fmt.Sprintf("%s:%d", strings.TrimPrefix(b.file, "../../"), b.line)
			checked[strings.TrimPrefix(b.file, "../../")]++
			t.Run(name, func(t *testing.T) {
				complete := func(cfg *Config) {
					if len(cfg.Collector.Hosts) == 0 && !strings.HasSuffix(b.file, "README.md") {
						cfg.Collector.Hosts = []string{"127.0.0.1"}
					}
				}
				if _, err := parseConfig([]byte(b.text), name, complete); err != nil {
					t.Errorf("%v\n%s", err, b.text)
				}
			})
		}
	}
	// The test must not pass by finding nothing.
	if checked["README.md"] == 0 {
		t.Errorf("no partmon config found in README.md's yaml blocks (checked: %v)", checked)
	}
}
