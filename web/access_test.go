package web

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/partmon/partmon/exporter"
	"github.com/partmon/partmon/publish"
	"github.com/partmon/partmon/tools/reporttest"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// accessServer serves a published report over HTTPS with the web config
// cfg (a TLS section is prepended) and access.PageUsers; it returns the
// base URL, a client trusting the server's CA and the TLS files.
func accessServer(t *testing.T, usersYAML string, pageUsers []string) (string, *http.Client, testcluster.TLSFiles) {
	t.Helper()
	dir := t.TempDir()
	files, err := testcluster.WriteServerFiles(dir, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(dir, "web.yml")
	cfg := "tls_server_config:\n  cert_file: " + files.Cert + "\n  key_file: " + files.Key + "\n" + usersYAML
	if err := os.WriteFile(webConfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	latest := &publish.Latest{}
	e := exporter.New(latest, exporter.Options{})
	latest.Publish(reporttest.Cluster())
	h, err := NewHandler(latest, e, nil, HandlerOptions{})
	if err != nil {
		t.Fatal(err)
	}
	addr := testkit.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- Serve(ctx, []string{addr}, Access{ConfigFile: webConfig, PageUsers: pageUsers}, h, nil)
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-errc; err != nil {
			t.Errorf("Serve after cancel: %v", err)
		}
	})
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool(t, files.CA), MinVersion: tls.VersionTLS12},
	}}
	base := "https://" + addr
	waitServing(t, client, base+"/healthz", errc)
	return base, client, files
}

func pool(t *testing.T, caFile string) *x509.CertPool {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	p := x509.NewCertPool()
	if !p.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", caFile)
	}
	return p
}

func hash(t *testing.T, password string) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return string(h)
}

// TestAccessByEndpoint: health answers anyone (probes carry no
// credentials), /metrics any configured user, the page and the API (they
// show partition keys) only web.page_users; each endpoint with the real
// HTTP client over TLS.
func TestAccessByEndpoint(t *testing.T) {
	users := "basic_auth_users:\n  scraper: " + hash(t, "scrape-pw") + "\n  reader: " + hash(t, "read-pw") + "\n"
	type cred struct{ user, pass string }
	none, scraper, reader := cred{}, cred{"scraper", "scrape-pw"}, cred{"reader", "read-pw"}
	wrong := cred{"reader", "scrape-pw"}
	tests := []struct {
		name      string
		pageUsers []string
		path      string
		cred      cred
		want      int
		wantBody  string
	}{
		{"healthz without credentials", []string{"reader"}, "/healthz", none, 200, "ok"},
		{"readyz without credentials", []string{"reader"}, "/readyz", none, 200, "ready"},
		{"first cycle without credentials", []string{"reader"}, "/readyz/cycle", none, 200, "first cycle done"},
		{"healthz with a wrong password", []string{"reader"}, "/healthz", wrong, 200, "ok"},
		{"metrics without credentials", []string{"reader"}, "/metrics", none, 401, "Unauthorized"},
		{"metrics with a wrong password", []string{"reader"}, "/metrics", wrong, 401, "Unauthorized"},
		{"metrics as scraper", []string{"reader"}, "/metrics", scraper, 200, "partmon_up 1"},
		{"metrics as page user", []string{"reader"}, "/metrics", reader, 200, "partmon_up 1"},
		{"page without credentials", []string{"reader"}, "/", none, 401, "Unauthorized"},
		{"page as scraper", []string{"reader"}, "/", scraper, 403, "web.page_users"},
		{"page as page user", []string{"reader"}, "/", reader, 200, "orders"},
		{"report as scraper", []string{"reader"}, "/api/v1/report", scraper, 403, "web.page_users"},
		{"report as page user", []string{"reader"}, "/api/v1/report", reader, 200, `"cluster":"demo"`},
		{"findings without credentials", []string{"reader"}, "/api/v1/findings", none, 401, "Unauthorized"},
		{"findings as scraper", []string{"reader"}, "/api/v1/findings", scraper, 403, "web.page_users"},
		{"findings as page user", []string{"reader"}, "/api/v1/findings", reader, 200, "f-oversized"},
		{"unknown path as scraper", []string{"reader"}, "/nope", scraper, 403, "web.page_users"},
		{"unknown path as page user", []string{"reader"}, "/nope", reader, 404, "not found"},
		{"no page_users: scraper sees the report", nil, "/api/v1/report", scraper, 200, `"cluster":"demo"`},
		{"no page_users: still 401 without credentials", nil, "/api/v1/report", none, 401, "Unauthorized"},
		{"no page_users: health still open", nil, "/readyz", none, 200, "ready"},
	}
	servers := map[bool]struct {
		base   string
		client *http.Client
	}{}
	for _, strict := range []bool{true, false} {
		var pu []string
		if strict {
			pu = []string{"reader"}
		}
		base, client, _ := accessServer(t, users, pu)
		servers[strict] = struct {
			base   string
			client *http.Client
		}{base, client}
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := servers[tc.pageUsers != nil]
			req, _ := http.NewRequest(http.MethodGet, srv.base+tc.path, nil)
			if tc.cred.user != "" {
				req.SetBasicAuth(tc.cred.user, tc.cred.pass)
			}
			resp, err := srv.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.want || !strings.Contains(string(body), tc.wantBody) {
				t.Fatalf("status %d, want %d with %q: %.200s", resp.StatusCode, tc.want, tc.wantBody, body)
			}
			if got := resp.Header.Get("WWW-Authenticate"); (tc.want == 401) != (got == "Basic") {
				t.Errorf("WWW-Authenticate %q with status %d", got, tc.want)
			}
		})
	}
}

// TestServeTLSRotation: certificate and key files rewritten in place (a
// Kubernetes Secret rotating) are served from the next handshake on,
// without a restart.
func TestServeTLSRotation(t *testing.T) {
	base, client, files := accessServer(t, "", nil)
	if resp, err := client.Get(base + "/healthz"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	next, err := testcluster.WriteServerFiles(t.TempDir(), "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	for from, to := range map[string]string{next.Cert: files.Cert, next.Key: files.Key} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	fresh := func(caFile string) error {
		c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
			TLSClientConfig: &tls.Config{RootCAs: pool(t, caFile), MinVersion: tls.VersionTLS12},
		}}
		resp, err := c.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	if err := fresh(next.CA); err != nil {
		t.Errorf("a client trusting the new CA: %v", err)
	}
	if err := fresh(files.CA); err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Errorf("a client trusting only the old CA: %v, want an unknown-authority error", err)
	}
}

func TestCheckAccess(t *testing.T) {
	dir := t.TempDir()
	webConfig := filepath.Join(dir, "web.yml")
	if err := os.WriteFile(webConfig, []byte("basic_auth_users:\n  reader: "+hash(t, "pw")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	plainHash := filepath.Join(dir, "plain.yml")
	if err := os.WriteFile(plainHash, []byte("basic_auth_users:\n  reader: not-a-hash\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		access  Access
		wantErr string
	}{
		{"nothing", Access{}, ""},
		{"users, no page users", Access{ConfigFile: webConfig}, ""},
		{"page user among the users", Access{ConfigFile: webConfig, PageUsers: []string{"reader"}}, ""},
		{"page user not among the users", Access{ConfigFile: webConfig, PageUsers: []string{"scraper"}}, `page_users: "scraper" is not in basic_auth_users`},
		{"page users without a web config", Access{PageUsers: []string{"reader"}}, "page_users needs config_file"},
		{"a password that is not a bcrypt hash", Access{ConfigFile: plainHash}, "checking web config file"},
		{"no such file", Access{ConfigFile: filepath.Join(dir, "absent.yml")}, "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckAccess(tc.access)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}
