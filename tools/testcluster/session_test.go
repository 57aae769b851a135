package testcluster

import (
	"testing"

	"github.com/gocql/gocql"
)

// TestApplyEnv: the session options follow cluster.env — the superuser with
// AUTH=true, the test CA with verification on with TLS=true, and the client
// certificate only when the cluster requires one.
func TestApplyEnv(t *testing.T) {
	tests := []struct {
		name       string
		env        map[string]string
		wantAuth   bool
		wantTLS    bool
		wantClient bool
	}{
		{name: "plain", env: map[string]string{"AUTH": "false", "TLS": "false"}},
		{name: "auth", env: map[string]string{"AUTH": "true"}, wantAuth: true},
		{name: "tls", env: map[string]string{"TLS": "true", "TLS_CA": "/d/tls/ca.pem", "TLS_CLIENT_AUTH": "false",
			"TLS_CLIENT_CERT": "/d/tls/client.pem", "TLS_CLIENT_KEY": "/d/tls/client-key.pem"}, wantTLS: true},
		{name: "tls with client auth", env: map[string]string{"AUTH": "true", "TLS": "true", "TLS_CA": "/d/tls/ca.pem", "TLS_CLIENT_AUTH": "true",
			"TLS_CLIENT_CERT": "/d/tls/client.pem", "TLS_CLIENT_KEY": "/d/tls/client-key.pem"}, wantAuth: true, wantTLS: true, wantClient: true},
		{name: "no env", env: nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := gocql.NewCluster("127.0.0.4")
			ApplyEnv(cfg, tt.env)
			auth, ok := cfg.Authenticator.(gocql.PasswordAuthenticator)
			if ok != tt.wantAuth || ok && (auth.Username != SuperuserName || auth.Password != SuperuserPassword) {
				t.Errorf("authenticator %+v, want superuser: %v", cfg.Authenticator, tt.wantAuth)
			}
			if (cfg.SslOpts != nil) != tt.wantTLS {
				t.Fatalf("TLS options %+v, want TLS: %v", cfg.SslOpts, tt.wantTLS)
			}
			if !tt.wantTLS {
				return
			}
			if cfg.SslOpts.CaPath != tt.env["TLS_CA"] || !cfg.SslOpts.EnableHostVerification {
				t.Errorf("CA %q verify %v, want %q and verification", cfg.SslOpts.CaPath, cfg.SslOpts.EnableHostVerification, tt.env["TLS_CA"])
			}
			if got := cfg.SslOpts.CertPath != "" && cfg.SslOpts.KeyPath != ""; got != tt.wantClient {
				t.Errorf("client certificate %q/%q, want one: %v", cfg.SslOpts.CertPath, cfg.SslOpts.KeyPath, tt.wantClient)
			}
		})
	}
}
