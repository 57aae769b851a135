package web

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/partmon/partmon/keyadvice"
)

type badInput struct{ error }

func (badInput) BadInput() bool { return true }

func TestAdviseAPI(t *testing.T) {
	release, started := make(chan struct{}), make(chan struct{})
	var gotTable string
	var gotKeys []string
	f := func(ctx context.Context, table string, keys []string) (*keyadvice.Advice, error) {
		gotTable, gotKeys = table, keys
		switch table {
		case "ks.bad":
			return nil, badInput{errors.New(`key (nope) names column "nope", which the table does not have`)}
		case "ks.down":
			return nil, errors.New("cannot reach 10.0.0.1:9042")
		case "ks.slow":
			close(started)
			<-release
		}
		return &keyadvice.Advice{Keyspace: "ks", Table: "t", Keys: []keyadvice.Projection{{Key: "(a)", Current: true}}}, nil
	}
	get := func(h http.Handler, path string) (*httptest.ResponseRecorder, map[string]any) {
		w := httptest.NewRecorder()
		mux := http.NewServeMux()
		mux.Handle("GET /api/v1/advise/{keyspace}/{table}", h)
		mux.ServeHTTP(w, httptest.NewRequest("GET", path, nil))
		var body map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
			t.Fatalf("%s: %v: %s", path, err, w.Body)
		}
		return w, body
	}
	if w, body := get(adviseHandler(nil, nil), "/api/v1/advise/ks/t"); w.Code != 404 || !strings.Contains(body["error"].(string), "--advise.enabled") {
		t.Errorf("off: %d %v", w.Code, body)
	}
	h := adviseHandler(f, nil)
	if w, body := get(h, "/api/v1/advise/ks/t?key=((a,b))&key=(b,a)"); w.Code != 200 || gotTable != "ks.t" || len(gotKeys) != 2 || body["table"] != "t" {
		t.Errorf("ok: %d %v, asked %s %v", w.Code, body, gotTable, gotKeys)
	}
	if w, body := get(h, "/api/v1/advise/ks/bad"); w.Code != 400 || !strings.Contains(body["error"].(string), "nope") {
		t.Errorf("bad input: %d %v", w.Code, body)
	}
	if w, _ := get(h, "/api/v1/advise/ks/down"); w.Code != 502 {
		t.Errorf("unreachable: %d", w.Code)
	}
	done := make(chan struct{})
	go func() { get(h, "/api/v1/advise/ks/slow"); close(done) }()
	<-started
	if w, body := get(h, "/api/v1/advise/ks/t"); w.Code != 429 || w.Header().Get("Retry-After") == "" {
		t.Errorf("while a sample runs: %d %v, want 429 with Retry-After", w.Code, body)
	}
	close(release)
	<-done
}
