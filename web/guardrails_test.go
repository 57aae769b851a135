package web

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/internal/keys"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
)

// The guardrail and key-history endpoints byte for byte, and their errors.
func TestGuardrailAndKeysAPI(t *testing.T) {
	latest := &publish.Latest{}
	srv := newTestHandler(t, latest, exporter.New(latest, exporter.Options{}), nil)
	if res := get(t, srv.URL+"/api/v1/guardrails"); res.status != http.StatusServiceUnavailable {
		t.Errorf("before the first cycle: status %d, want 503", res.status)
	}
	latest.Publish(reporttest.Cluster())
	for _, tc := range []struct{ name, path string }{
		{"guardrails.json", "/api/v1/guardrails"},
		{"keys_shop_events.json", "/api/v1/keys/shop/events"},
		{"keys_shop_users.json", "/api/v1/keys/shop/users"}, // a table with no named key: empty lists
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := get(t, srv.URL+tc.path)
			if res.status != http.StatusOK || res.contentType != "application/json" {
				t.Fatalf("status %d, Content-Type %q", res.status, res.contentType)
			}
			compareGolden(t, filepath.Join("testdata", "api", tc.name), []byte(res.body))
		})
	}
	for path, want := range map[string]int{
		"/api/v1/keys/shop/nosuch":    http.StatusNotFound,
		"/api/v1/keys/Shop/events":    http.StatusNotFound, // names keep their case
		"/api/v1/guardrails?x=1":      http.StatusBadRequest,
		"/api/v1/keys/shop":           http.StatusNotFound,
		"/api/v1/keys/shop/events/x/": http.StatusNotFound,
	} {
		if res := get(t, srv.URL+path); res.status != want {
			t.Errorf("%s: status %d, want %d (%s)", path, res.status, want, res.body)
		}
	}
}

// In hashed and omitted modes the key history shows no plain key.
func TestKeysAPIHidesKeys(t *testing.T) {
	for _, mode := range []keys.Mode{keys.Hashed, keys.Omitted} {
		latest := &publish.Latest{Keys: keys.New(mode, []byte("0123456789abcdef0123456789abcdef"), 0)}
		srv := newTestHandler(t, latest, exporter.New(latest, exporter.Options{}), nil)
		latest.Publish(reporttest.Cluster())
		for _, path := range []string{"/api/v1/keys/shop/events", "/api/v1/guardrails"} {
			res := get(t, srv.URL+path)
			if res.status != http.StatusOK {
				t.Fatalf("%s %s: status %d", mode, path, res.status)
			}
			for _, plain := range []string{"acme", "globex"} {
				if strings.Contains(res.body, plain) {
					t.Errorf("%s %s shows key %q: %s", mode, path, plain, res.body)
				}
			}
		}
	}
}
