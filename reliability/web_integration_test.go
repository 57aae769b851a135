//go:build integration

package reliability

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// TestWebConfigFlag runs the real binary with --web.config.file (TLS with a
// certificate from a CA the test makes, and basic auth): /metrics answers
// over HTTPS to the right password only, and not over plain HTTP; health
// answers without credentials. The
// web server's own test (web/tls_test.go) covers the cases in depth; this
// one proves the flag reaches the server.
func TestWebConfigFlag(t *testing.T) {
	c := ownCluster(t)
	dir := t.TempDir()
	files, err := testcluster.WriteServerFiles(dir, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	// dave:dave123 at bcrypt cost 10, from exporter-toolkit v0.20.0 web/testdata/web_config_users_noTLS.good.yml.
	webConfig := filepath.Join(dir, "web.yml")
	if err := os.WriteFile(webConfig, []byte(fmt.Sprintf("tls_server_config:\n  cert_file: %s\n  key_file: %s\nbasic_auth_users:\n  dave: %s\n",
		files.Cert, files.Key, "$2y$10$2UXri9cIDdgeKjBo4Rlpx.U3ZLDV8X1IxKmsfOvhcM5oXQt/mLmXq")), 0o600); err != nil {
		t.Fatal(err)
	}
	caPEM, err := os.ReadFile(files.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)

	listen := testkit.FreeAddr(t)
	// The binary without the race detector: a bcrypt check of cost 10 took
	// 14 s under it on the loaded 2-core box (2 s without), past the
	// client's 10-s timeout.
	d := c.startPartmon(t, "partmon-web-config", options{creds: c.readOnlyRole(t, "partmon_web"), webConfig: webConfig, listen: listen, plain: true})
	d.base = "https://" + listen
	d.client = &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	d.user, d.pass = "dave", "dave123"
	d.waitReady(60 * time.Second)
	if body := d.mustGet("/metrics"); !strings.Contains(string(body), "partmon_up 1") {
		t.Errorf("/metrics over HTTPS has no partmon_up 1:\n%.500s", body)
	}

	d.pass = "dave1234"
	if _, code, err := d.get("/metrics"); err != nil || code != http.StatusUnauthorized {
		t.Errorf("wrong password: %d %v, want 401", code, err)
	}
	// Probes carry no credentials: health answers without them.
	d.user = ""
	for _, path := range []string{"/healthz", "/readyz", "/readyz/cycle"} {
		if _, code, err := d.get(path); err != nil || code != http.StatusOK {
			t.Errorf("GET %s without credentials: %d %v, want 200", path, code, err)
		}
	}
	if _, code, err := d.get("/metrics"); err != nil || code != http.StatusUnauthorized {
		t.Errorf("GET /metrics without credentials: %d %v, want 401", code, err)
	}
	d.user = "dave"
	plain := &daemon{t: t, proc: d.proc, base: "http://" + listen, client: &http.Client{Timeout: 10 * time.Second}, user: "dave", pass: "dave123"}
	if body, code, err := plain.get("/metrics"); err == nil && (code == http.StatusOK || strings.Contains(string(body), "partmon_up")) {
		t.Errorf("plain HTTP served the metrics: %d", code)
	}
	d.pass = "dave123"
	d.assertNoSecret("dave123") // partmon only has the hash; a logged Authorization header would show it
}
