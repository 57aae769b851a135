package outputfuzz

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/partmon/partmon/alertmanager"
	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/render"
	"github.com/partmon/partmon/tools/reporttest"
	"github.com/partmon/partmon/web"
)

// The markers every planted key starts and ends with: letters no hashed key
// (hex), escape or word of partmon's holds, so a marker in an output is a
// piece of a key however the output wrote the rest of it.
const (
	keyStart = "zqK7x"
	keyEnd   = "x7Kqz"
)

// FuzzHiddenKeys: keys holding newlines, quotes, markdown, HTML and invalid
// UTF-8 (the fuzzer's bytes between two markers) stand for every key of a
// report, in its key lists, findings, summaries and key history; with keys
// hashed or omitted, no output names any piece of one: /metrics, every
// /api/v1/ endpoint, the status page, the text, markdown and JSON reports,
// the pushed alerts and the log (written through the Keyer's scrubber). In
// make test it runs its seed corpus (testdata/fuzz/FuzzHiddenKeys) and then
// -fuzztime 300x (scripts/test-all.sh).
func FuzzHiddenKeys(f *testing.F) {
	for _, seed := range []string{"customer|42", "a\nb", "line1\r\nline2", `say "hi"`, "it's", "[x](https://evil.example/)",
		"**bold** _em_ `code` | pipe", "<script>alert(1)</script>", "&amp; &lt;", "\xff\xfe\x80", "é\u2028\u0000\t\b", " padded ", "%41%0A"} {
		f.Add(seed)
	}
	var mu sync.Mutex
	var pushed bytes.Buffer
	am := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		pushed.Write(b)
		mu.Unlock()
	}))
	f.Cleanup(am.Close)
	secret := []byte("hidden-keys fuzz secret, 16+ bytes")
	f.Fuzz(func(t *testing.T, fuzzed string) {
		if len(fuzzed) > 64 {
			fuzzed = fuzzed[:64] // the shapes that matter are short; a long key only slows each input
		}
		planted := map[string]string{}
		for _, old := range []string{"customer|42", "customer|7", "customer|9", "acme", "globex"} {
			planted[old] = keyStart + old + fuzzed + keyEnd
		}
		for _, k := range []*keys.Keyer{keys.New(keys.Hashed, secret, 0), keys.New(keys.Omitted, secret, 0)} {
			mu.Lock()
			pushed.Reset()
			mu.Unlock()
			outputs := hiddenOutputs(t, k, plantKeys(reporttest.Cluster(), planted), am.URL)
			mu.Lock()
			outputs["pushed alerts"] = pushed.String()
			mu.Unlock()
			for name, out := range outputs {
				if leak := keyPiece(out); leak != "" {
					t.Errorf("%s mode, key %q: %s names a key (%s)", k.Mode(), fuzzed, name, leak)
				}
			}
			if !strings.Contains(outputs["/metrics"], "partition_key=") {
				t.Errorf("%s mode: /metrics has no key series: the search cannot fail", k.Mode())
			}
		}
	})
}

// keyPiece names the form of a marker found in out, "" if none.
func keyPiece(out string) string {
	for _, m := range []string{keyStart, keyEnd} {
		for form, s := range map[string]string{"plain": m, "hex": hex.EncodeToString([]byte(m)), "HEX": strings.ToUpper(hex.EncodeToString([]byte(m)))} {
			if strings.Contains(out, s) {
				return form + " " + m
			}
		}
	}
	return ""
}

// hiddenOutputs publishes r with k and reads every output.
func hiddenOutputs(t *testing.T, k *keys.Keyer, r *analyzer.Report, amURL string) map[string]string {
	latest := &publish.Latest{Keys: k}
	h, err := web.NewHandler(latest, exporter.New(latest, exporter.Options{}), nil,
		web.HandlerOptions{DisableExporterMetrics: true, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	logger := zap.New(zapcoreTo(k.Writer(&log)))
	shown := latest.Publish(r)
	out := map[string]string{}
	for _, path := range []string{"/metrics", "/api/v1/report", "/api/v1/findings", "/api/v1/guardrails", "/api/v1/keys/shop/orders",
		"/api/v1/keys/shop/events", "/"} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Accept", "text/plain")
		h.ServeHTTP(rec, req)
		out[path] = rec.Body.String()
	}
	for _, f := range []render.Format{render.Text, render.Markdown, render.JSON} {
		var b bytes.Buffer
		if err := render.Report(&b, shown, f, finding.SeverityInfo); err != nil {
			t.Fatal(err)
		}
		out["report "+string(f)] = b.String()
	}
	p, err := alertmanager.New(alertmanager.Options{URLs: []string{amURL}, MinSeverity: finding.SeverityInfo, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	p.Update(shown)
	if err := p.PushOnce(context.Background()); err != nil {
		t.Errorf("pushing: %v", err)
	}
	// The log quotes what the daemon's log lines can: a finding's summary
	// and key as the raw report has them, scrubbed by the Keyer's writer.
	for _, f := range r.Findings {
		logger.Warn("finding "+f.Summary, zap.String("key", f.PartitionKey), zap.String("url", "/x?k="+url.QueryEscape(f.PartitionKey)))
	}
	_ = logger.Sync()
	out["log"] = log.String()
	return out
}

// plantKeys replaces every string equal to, or holding, an old key of r with
// its planted key, at any depth (a map's values too), keeping invalid UTF-8
// as it is: the keys reach the outputs as a source would hand them over.
func plantKeys(r *analyzer.Report, planted map[string]string) *analyzer.Report {
	v := reflect.ValueOf(r).Elem()
	plant(v, planted)
	return r
}

func plant(v reflect.Value, planted map[string]string) {
	switch v.Kind() {
	case reflect.String:
		s := v.String()
		for old, key := range planted {
			if strings.Contains(s, old) && v.CanSet() {
				s = strings.ReplaceAll(s, old, key)
			}
		}
		if v.CanSet() {
			v.SetString(s)
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			plant(v.Elem(), planted)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				plant(v.Field(i), planted)
			}
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			plant(v.Index(i), planted)
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			val := reflect.New(it.Value().Type()).Elem()
			val.Set(it.Value())
			plant(val, planted)
			v.SetMapIndex(it.Key(), val)
		}
	}
}

func zapcoreTo(w io.Writer) zapcore.Core {
	return zapcore.NewCore(zapcore.NewJSONEncoder(zap.NewProductionEncoderConfig()), zapcore.AddSync(w), zap.DebugLevel)
}
