//go:build integration

package reliability

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/internal/testcluster"
	"github.com/partmon/partmon/model"
)

// TestClientTLS runs partmon against a cluster that accepts only TLS clients
// (`cluster up --tls`: certificates signed by the test CA in DIR/tls, each
// naming its node's IP and one shared DNS name). With the CA and the shared
// server_name partmon verifies every node and reads every source. With a CA
// the nodes do not chain to, or a server_name their certificates do not
// name, every node fails with a certificate error that says so — and
// partmon keeps serving. Without TLS it cannot talk to the nodes at all.
func TestClientTLS(t *testing.T) {
	c := ownCluster(t)
	if !c.tls() {
		t.Skip("the cluster runs without --tls")
	}
	creds := c.readOnlyRole(t, "partmon_tls")
	clientCert := func(tls map[string]any) map[string]any {
		if c.env["TLS_CLIENT_AUTH"] == "true" {
			tls["cert_file"], tls["key_file"] = c.env["TLS_CLIENT_CERT"], c.env["TLS_CLIENT_KEY"]
		}
		return tls
	}
	otherCA, err := testcluster.NewCA("not the cluster's CA")
	if err != nil {
		t.Fatal(err)
	}
	otherCAFile := filepath.Join(t.TempDir(), "other-ca.pem")
	if err := os.WriteFile(otherCAFile, otherCA.PEM, 0o600); err != nil {
		t.Fatal(err)
	}

	good := c.startPartmon(t, "partmon-tls", options{creds: creds, tls: clientCert(map[string]any{
		"enabled": true, "ca_file": c.env["TLS_CA"], "server_name": c.env["TLS_SERVER_NAME"]})})
	failing := []struct {
		name    string
		d       *daemon
		wantErr string // in every node's source errors
	}{
		{"CA the nodes do not chain to", c.startPartmon(t, "partmon-tls-wrong-ca", options{creds: creds, tls: clientCert(map[string]any{
			"enabled": true, "ca_file": otherCAFile})}), "x509: certificate signed by unknown authority"},
		{"server_name the certificates do not name", c.startPartmon(t, "partmon-tls-wrong-name", options{creds: creds, tls: clientCert(map[string]any{
			"enabled": true, "ca_file": c.env["TLS_CA"], "server_name": "wrong.partmon.test"})}), "x509: certificate is valid for"},
		{"no TLS", c.startPartmon(t, "partmon-no-tls", options{creds: creds, tls: map[string]any{"enabled": false}}), ""},
	}

	good.waitReady(60 * time.Second)
	good.waitFor(60*time.Second, "every source ok on every node over verified TLS", func() (bool, string) {
		rep, err := good.report()
		if err != nil {
			return false, err.Error()
		}
		if ok, why := everySourceRan(rep, c.hosts); !ok {
			return false, why
		}
		for _, s := range rep.Sources {
			if s.State == model.StateError {
				return false, s.Source + "@" + s.Node + ": " + s.Error
			}
		}
		return true, ""
	})

	for _, f := range failing {
		var last string
		f.d.waitFor(60*time.Second, f.name+": an error logged for every node", func() (bool, string) {
			var missing []string
			for _, h := range c.hosts {
				if e := loggedError(f.d.proc.Output(), h, f.wantErr); e == "" {
					missing = append(missing, h)
				} else {
					last = e
				}
			}
			return len(missing) == 0, "no such error yet for " + strings.Join(missing, ", ")
		})
		f.d.assertNothingRead(c.hosts)
		t.Logf("%s: every node fails with: %s", f.name, last)
	}
}
