package deploy

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestLocalClusterPOMsParse holds deploy/local/pom-*.xml to what Maven
// reads: strict XML (a "--" inside a comment made every POM unreadable, which
// only a machine without the cached classpath noticed) pinning one release of
// cassandra-all for its series.
func TestLocalClusterPOMsParse(t *testing.T) {
	for _, series := range []string{"5.0", "4.1", "4.0"} {
		t.Run(series, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "local", "pom-"+series+".xml"))
			if err != nil {
				t.Fatal(err)
			}
			var pom struct {
				Version string `xml:"properties>cassandra.version"`
				Deps    []struct {
					Artifact string `xml:"artifactId"`
					Version  string `xml:"version"`
				} `xml:"dependencies>dependency"`
			}
			d := xml.NewDecoder(bytes.NewReader(b))
			d.Strict = true
			if err := d.Decode(&pom); err != nil {
				t.Fatalf("Maven cannot read pom-%s.xml: %v", series, err)
			}
			// Go's decoder accepts "--" inside a comment; XML (and Maven) do not.
			for _, c := range regexp.MustCompile(`(?s)<!--(.*?)-->`).FindAllSubmatch(b, -1) {
				if regexp.MustCompile(`--`).Match(c[1]) {
					t.Errorf("pom-%s.xml: a comment holds \"--\", which XML forbids: %.60q", series, c[1])
				}
			}
			if !regexp.MustCompile(`^` + regexp.QuoteMeta(series) + `\.\d+$`).MatchString(pom.Version) {
				t.Errorf("pom-%s.xml pins cassandra.version %q, not one release of %s", series, pom.Version, series)
			}
			found := false
			for _, dep := range pom.Deps {
				found = found || dep.Artifact == "cassandra-all"
			}
			if !found {
				t.Errorf("pom-%s.xml has no cassandra-all dependency", series)
			}
		})
	}
}
