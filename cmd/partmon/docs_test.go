package main

import (
	"os"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

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
