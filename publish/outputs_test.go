package publish_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/render"
	"github.com/partmon/partmon/tools/reporttest"
)

// The metrics and the one-shot report of reporttest's cluster (keys
// customer|42, customer|7, customer|9 in the top partitions, the findings
// and their text) name no key when keys are hidden, and name them in plain
// mode, so the search can fail.
func TestOutputsHideKeys(t *testing.T) {
	const planted = "customer" // markdown writes the | of customer|42 escaped
	secret := []byte("0123456789abcdef-test-secret")
	for _, k := range []*keys.Keyer{keys.New(keys.Plain, nil, 0), keys.New(keys.Hashed, secret, 0), keys.New(keys.Omitted, nil, 0)} {
		latest := &publish.Latest{Keys: k}
		e := exporter.New(latest, exporter.Options{})
		shown := latest.Publish(reporttest.Cluster())
		reg := prometheus.NewPedanticRegistry()
		reg.MustRegister(e)
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		var metrics strings.Builder
		for _, mf := range mfs {
			for _, m := range mf.GetMetric() {
				for _, l := range m.GetLabel() {
					metrics.WriteString(l.GetName() + "=" + l.GetValue() + "\n")
				}
			}
		}
		outputs := map[string]string{"metrics": metrics.String()}
		for _, f := range []render.Format{render.Text, render.Markdown, render.JSON} {
			var b bytes.Buffer
			if err := render.Report(&b, shown, f, finding.SeverityInfo); err != nil {
				t.Fatal(err)
			}
			outputs["report "+string(f)] = b.String()
		}
		for name, out := range outputs {
			n := strings.Count(out, planted)
			if k.Hides() && n > 0 {
				t.Errorf("%s mode: %s names a key %d times", k.Mode(), name, n)
			}
			if !k.Hides() && n == 0 {
				t.Errorf("plain mode: %s names no key: the search cannot fail", name)
			}
		}
		if want := "partition_key=" + k.Show("customer|42") + "\n"; !strings.Contains(outputs["metrics"], want) {
			t.Errorf("%s mode: no series with %s", k.Mode(), strings.TrimSpace(want))
		}
	}
}
