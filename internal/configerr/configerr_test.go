package configerr

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"
)

// testConfig has the shapes of partmon's config: sections, a map of
// structs, lists, durations, pointers, a field yaml skips.
type testConfig struct {
	Collector struct {
		Hosts   []string                `yaml:"hosts"`
		Port    int                     `yaml:"port"`
		Timeout time.Duration           `yaml:"timeout"`
		TLS     struct{ Enabled bool }  `yaml:"tls"`
		Sources map[string]sourceConfig `yaml:"sources"`
	} `yaml:"collector"`
	Thresholds thresholdsConfig `yaml:"thresholds"`
	Flag       string           `yaml:"-"`
}

type sourceConfig struct {
	Enabled  *bool  `yaml:"enabled"`
	Schedule string `yaml:"schedule"`
}

type thresholdsConfig struct {
	Warning  float64 `yaml:"warning"`
	Critical float64 `yaml:"critical"`
	TopK     int     `yaml:"top_k"`
}

// validate names its problems by path relative to the section, as a
// section's own package does; the caller places them Under the section.
func (t thresholdsConfig) validate() error {
	if t.Warning > t.Critical {
		return Field("warning", "%g must not be above critical (%g)", t.Warning, t.Critical)
	}
	return nil
}

// validate is a validator in the package's style: Field errors by path.
func (c testConfig) validate() error {
	var errs []error
	if len(c.Collector.Hosts) == 0 {
		errs = append(errs, Field("collector.hosts", "at least one host is required"))
	}
	for _, name := range slices.Sorted(maps.Keys(c.Collector.Sources)) {
		if s := c.Collector.Sources[name].Schedule; s == "bad" {
			errs = append(errs, Field("collector.sources."+name+".schedule", "%q is not a cron spec", s))
		}
	}
	errs = append(errs, Under("thresholds", c.Thresholds.validate()))
	return errors.Join(errs...)
}

// load is what a program does with its config file: parse, decode over
// the defaults, validate, report.
func load(text string) (testConfig, error) {
	c := testConfig{Thresholds: thresholdsConfig{Warning: 1, Critical: 2, TopK: 10}}
	doc, err := Parse([]byte(text))
	if err != nil {
		return c, doc.Report("t.yml", err)
	}
	errs := doc.Decode(&c, "docs/configuration.md")
	return c, doc.Report("t.yml", append(errs, c.validate())...)
}

const hosts = "collector:\n  hosts: [a]\n"

func TestReport(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		want []string // the lines of the error after the header; nil: valid
	}{
		{"valid", hosts + "  port: 9042\n  timeout: 5s\nthresholds:\n  top_k: 3\n", nil},
		{"syntax error", "collector: [unclosed\n",
			[]string{"line 1: did not find expected ',' or ']'"}},
		{"syntax error past the first line", hosts + "\tport: 1\n",
			[]string{"line 3: found character that cannot start any token"}},
		{"unknown key nested three deep", hosts + "  tls:\n    enabeld: true\n",
			[]string{"line 4: collector.tls.enabeld: unknown key (did you mean enabled? docs/configuration.md lists every key)"}},
		{"unknown key under a map's entry", hosts + "  sources:\n    schema:\n      schedul: \"@every 1m\"\n",
			[]string{"line 5: collector.sources.schema.schedul: unknown key (did you mean schedule? docs/configuration.md lists every key)"}},
		{"unknown section, nothing near", hosts + "exporters:\n  top_k: 3\n",
			[]string{"line 3: exporters: unknown key (docs/configuration.md lists every key)"}},
		{"a key yaml skips is unknown", hosts + "flag: x\n",
			[]string{"line 3: flag: unknown key (docs/configuration.md lists every key)"}},
		{"wrong type", hosts + "  port: abc\n",
			[]string{`line 3: collector.port: want a whole number, got "abc"`}},
		{"a long value is shown whole", hosts + "  tls:\n    enabled: definitely-not\n",
			[]string{`line 4: collector.tls.enabled: want true or false, got "definitely-not"`}},
		{"a bare number is not a duration", hosts + "  timeout: 5\n",
			[]string{`line 3: collector.timeout: want a duration such as 30s, 5m or 1h, got "5"`}},
		{"a mapping in a list names the item", "collector:\n  hosts:\n    - a\n    - {b: c}\n",
			[]string{"line 4: collector.hosts[1]: want a string, got a mapping"}},
		{"a scalar for a section", "collector: yes\n",
			[]string{`line 1: collector: want a mapping of keys, got "yes"`, "line 1: collector.hosts: at least one host is required"}},
		{"a scalar for a list", "collector:\n  hosts: a\n",
			[]string{`line 2: collector.hosts: want a list, got "a"`, "line 2: collector.hosts: at least one host is required"}},
		{"a fraction for a whole number", hosts + "thresholds:\n  top_k: 3.5\n",
			[]string{"line 4: thresholds.top_k: want a whole number, got 3.5"}},
		{"invalid value from validation, at its own key", hosts + "  sources:\n    schema:\n      schedule: \"@every 1m\"\n    topology:\n      schedule: bad\n",
			[]string{`line 7: collector.sources.topology.schedule: "bad" is not a cron spec`}},
		{"a section's relative path placed under it", hosts + "thresholds:\n  critical: 0.5\n  warning: 0.9\n",
			[]string{"line 5: thresholds.warning: 0.9 must not be above critical (0.5)"}},
		{"a value the file lacks is at its nearest ancestor", hosts + "thresholds:\n  critical: 0.5\n",
			[]string{"line 3: thresholds.warning: 1 must not be above critical (0.5)"}},
		{"duplicate key", hosts + "  port: 1\n  port: 2\n",
			[]string{"line 4: collector.port: given twice in one mapping (first at line 3): keep one"}},
		{"duplicate section", hosts + "collector:\n  port: 2\n",
			[]string{"line 3: collector: given twice in one mapping (first at line 1): keep one"}},
		{"empty file", "",
			[]string{"collector.hosts: at least one host is required"}},
		{"comments only", "# nothing yet\n",
			[]string{"collector.hosts: at least one host is required"}},
		{"a second document", hosts + "---\nthresholds: {}\n",
			[]string{"line 3: a second YAML document (after ---): only the first would be read; merge them or remove the separator"}},
		{"every problem, ordered by line",
			"thresholds:\n  top_k: x\n  colour: red\ncollector:\n  port: [1]\n",
			[]string{`line 2: thresholds.top_k: want a whole number, got "x"`,
				"line 3: thresholds.colour: unknown key (docs/configuration.md lists every key)",
				"line 4: collector.hosts: at least one host is required",
				"line 5: collector.port: want a whole number, got a list"}},
		{"problems without a line come last", "thresholds:\n  colour: red\n",
			[]string{"line 2: thresholds.colour: unknown key (docs/configuration.md lists every key)",
				"collector.hosts: at least one host is required"}},
		{"merge keys and aliases", "base: &b\n  hosts: [a]\ncollector:\n  <<: *b\n  port: 1\n",
			[]string{"line 1: base: unknown key (docs/configuration.md lists every key)"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(tc.yaml)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want %q, got nil", tc.want)
			}
			lines := strings.Split(err.Error(), "\n")
			header := "invalid config t.yml:"
			if len(tc.want) > 1 {
				header = "invalid config t.yml (" + string(rune('0'+len(tc.want))) + " errors):"
			}
			want := append([]string{header}, tc.want...)
			for i := range want[1:] {
				want[i+1] = "  " + want[i+1]
			}
			if !slices.Equal(lines, want) {
				t.Errorf("error\n got %q\nwant %q", lines, want)
			}
		})
	}
}

// TestDecodeValues: what Decode leaves in the struct beside its problems.
func TestDecodeValues(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		port int
		host string
		topK int
	}{
		{"defaults kept where the file says nothing", hosts, 0, "a", 10},
		{"the first of a key given twice, the rest of its mapping too", "collector:\n  port: 1\n  port: 2\n  hosts: [b]\n", 1, "b", 10},
		{"a merge key's values under the explicit ones", "base: &b\n  hosts: [c]\n  port: 7\ncollector:\n  <<: *b\n  port: 8\n", 8, "c", 10},
		{"a wrong type leaves its default and decodes the rest", "collector:\n  port: abc\n  hosts: [d]\nthresholds:\n  top_k: 4\n", 0, "d", 4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := load(tc.yaml)
			host := ""
			if len(c.Collector.Hosts) > 0 {
				host = c.Collector.Hosts[0]
			}
			if c.Collector.Port != tc.port || host != tc.host || c.Thresholds.TopK != tc.topK {
				t.Errorf("port %d, host %q, top_k %d; want %d, %q, %d", c.Collector.Port, host, c.Thresholds.TopK, tc.port, tc.host, tc.topK)
			}
		})
	}
}

// keyError is the error of a package that must not import configerr.
type keyError struct{ path, msg string }

func (e keyError) Error() string                   { return e.path + ": " + e.msg }
func (e keyError) ConfigField() (path, msg string) { return e.path, e.msg }

// TestReportPaths: how Report, Under and Field place errors of every form.
func TestReportPaths(t *testing.T) {
	doc, err := Parse([]byte("web:\n  listen_addresses:\n    - \":1\"\n    - nowhere\nkeys:\n  mode: x\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := doc.Report("f.yml",
		errors.New("a plain error: about the file"),
		Under("web", Under("listen_addresses", Field("[1]", "not host:port"))),
		keyError{"keys.mode", "want plain, hashed or omitted"},
		Under("keys", errors.New("a section's plain error")),
		Under("metrics", nil),
		Field("web.listen_addresses[7]", "past the list: at the list"),
	)
	want := `invalid config f.yml (5 errors):
  line 2: web.listen_addresses[7]: past the list: at the list
  line 4: web.listen_addresses[1]: not host:port
  line 5: keys: a section's plain error
  line 6: keys.mode: want plain, hashed or omitted
  a plain error: about the file`
	if got == nil || got.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", got, want)
	}
	if err := doc.Report("f.yml", nil, Under("x", nil)); err != nil {
		t.Errorf("no problems: got %v", err)
	}
	var none *Doc
	if err := none.Report("", Field("collector.hosts", "required")); err == nil || err.Error() != "invalid config:\n  collector.hosts: required" {
		t.Errorf("without a file: %v", err)
	}
}

// TestAliasBomb: a document whose aliases would expand to a billion nodes
// is refused at once: the walks do not expand what they need not, and
// stop at a bound.
func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "a%d: &a%d [*a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d, *a%d]\n", i, i, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1, i-1)
	}
	b.WriteString("collector:\n  hosts: *a9\n")
	start := time.Now()
	_, err := load(b.String())
	if err == nil || !strings.Contains(err.Error(), "\n  line 10: collector.hosts[0]: want a string, got a list\n") {
		t.Errorf("got %v, want the hosts refused", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %s", d)
	}
}
