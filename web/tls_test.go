package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// TestServeTLSAndBasicAuth serves /metrics through an exporter-toolkit web
// config with TLS (a certificate signed by a CA the test makes) and basic
// auth, as `partmon run --web.config.file` does: HTTPS with the CA and the
// right password works; a wrong or missing password is 401; plain HTTP and
// a client that does not trust the CA get no metrics.
func TestServeTLSAndBasicAuth(t *testing.T) {
	dir := t.TempDir()
	files, err := testcluster.WriteServerFiles(dir, "127.0.0.1", "localhost")
	if err != nil {
		t.Fatal(err)
	}
	// dave:dave123 at bcrypt cost 10, from exporter-toolkit v0.20.0 web/testdata/web_config_users_noTLS.good.yml.
	webConfig := filepath.Join(dir, "web.yml")
	cfg := "tls_server_config:\n  cert_file: " + files.Cert + "\n  key_file: " + files.Key +
		"\nbasic_auth_users:\n  dave: $2y$10$2UXri9cIDdgeKjBo4Rlpx.U3ZLDV8X1IxKmsfOvhcM5oXQt/mLmXq\n"
	if err := os.WriteFile(webConfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	eLatest := &publish.Latest{}
	e := exporter.New(eLatest, exporter.Options{})
	eLatest.Publish(reporttest.Cluster())
	h, err := NewHandler(eLatest, e, nil, HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	addr := testkit.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- Serve(ctx, []string{addr}, Access{ConfigFile: webConfig}, h, nil) }()
	defer func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Serve after cancel: %v", err)
		}
	}()

	caPEM, err := os.ReadFile(files.CA)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	trusting := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	untrusting := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: x509.NewCertPool()}}}
	plain := &http.Client{Timeout: 10 * time.Second}
	waitServing(t, trusting, "https://"+addr+"/healthz", errc)

	tests := []struct {
		name       string
		client     *http.Client
		url        string
		user, pass string
		wantStatus int    // 0: the request must fail
		wantErr    string // for failing requests
	}{
		{name: "https, trusted CA, right password", client: trusting, url: "https://" + addr + "/metrics", user: "dave", pass: "dave123", wantStatus: http.StatusOK},
		{name: "https by name, right password", client: trusting, url: "https://localhost:" + addr[strings.LastIndex(addr, ":")+1:] + "/metrics", user: "dave", pass: "dave123", wantStatus: http.StatusOK},
		{name: "https, wrong password", client: trusting, url: "https://" + addr + "/metrics", user: "dave", pass: "dave1234", wantStatus: http.StatusUnauthorized},
		{name: "https, no credentials", client: trusting, url: "https://" + addr + "/metrics", wantStatus: http.StatusUnauthorized},
		{name: "https, unknown user", client: trusting, url: "https://" + addr + "/api/v1/report", user: "eve", pass: "dave123", wantStatus: http.StatusUnauthorized},
		{name: "plain http", client: plain, url: "http://" + addr + "/metrics", user: "dave", pass: "dave123", wantStatus: http.StatusBadRequest},
		{name: "CA not trusted", client: untrusting, url: "https://" + addr + "/metrics", user: "dave", pass: "dave123", wantErr: "certificate signed by unknown authority"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(http.MethodGet, tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.user != "" {
				req.SetBasicAuth(tc.user, tc.pass)
			}
			resp, err := tc.client.Do(req)
			if tc.wantErr != "" {
				var verr *tls.CertificateVerificationError
				if err == nil || !errors.As(err, &verr) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("want a certificate error %q, got %v", tc.wantErr, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.wantStatus, body)
			}
			if got := strings.Contains(string(body), "partmon_up"); got != (tc.wantStatus == http.StatusOK) {
				t.Errorf("metrics in the body: %v, want %v", got, tc.wantStatus == http.StatusOK)
			}
			if tc.wantStatus == http.StatusOK && resp.TLS == nil {
				t.Error("answered without TLS")
			}
		})
	}
}
