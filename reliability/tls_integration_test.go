//go:build integration

package reliability

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testcluster"
)

// clientCertRefused is the TLS 1.3 alert (certificate_required) a node with
// require_client_auth sends when the client presents no certificate, as
// Go's crypto/tls reports it. A certificate from another CA is sent all the
// same: partmon hands its certificate over through GetClientCertificate
// (read at every handshake, for rotation), which Go calls whatever CAs the
// node's CertificateRequest names, so the node's own check refuses it
// (forgedCertRefused; measured on Cassandra 5.0.8 with Java 17).
const clientCertRefused = "remote error: tls: certificate required"

// tlsRun is a partmon run whose TLS settings every node must refuse.
type tlsRun struct {
	name, proc string
	tls        map[string]any // collector.tls
	wantErr    string         // in every node's source errors
}

// mutualTLSRefusals are the runs a cluster with require_client_auth must
// refuse: verified TLS without a client certificate, with one from another
// CA, and with one from another CA that bears the cluster CA's name (partmon
// sends both, so the node's own check refuses them).
func mutualTLSRefusals(t *testing.T, c *cluster, otherCA *testcluster.CA) []tlsRun {
	t.Helper()
	strangerCert, strangerKey, err := otherCA.IssueClient(t.TempDir(), "partmon-stranger")
	if err != nil {
		t.Fatal(err)
	}
	impostor, err := testcluster.NewImpostorCA(c.env["TLS_CA"])
	if err != nil {
		t.Fatal(err)
	}
	forgedCert, forgedKey, err := impostor.IssueClient(t.TempDir(), "partmon-forged")
	if err != nil {
		t.Fatal(err)
	}
	verified := map[string]any{"enabled": true, "ca_file": c.env["TLS_CA"], "server_name": c.env["TLS_SERVER_NAME"]}
	with := func(cert, key string) map[string]any {
		m := maps.Clone(verified)
		m["cert_file"], m["key_file"] = cert, key
		return m
	}
	return []tlsRun{
		{"no client certificate", "partmon-mtls-no-cert", verified, clientCertRefused},
		{"client certificate from another CA", "partmon-mtls-stranger", with(strangerCert, strangerKey), forgedCertRefused},
		{"client certificate from another CA with the cluster CA's name", "partmon-mtls-forged", with(forgedCert, forgedKey), forgedCertRefused},
	}
}

// forgedCertRefused is how a node refuses a client certificate it was sent
// and could not verify (its issuer's name is the cluster CA's, its signature
// is not): Cassandra's TLS engine (netty's OpenSSL binding) aborts the
// handshake with an internal_error alert. Measured on Cassandra 5.0.8.
const forgedCertRefused = "remote error: tls: internal error"

// TestClientTLS runs partmon against a cluster that accepts only TLS clients
// (`cluster up --tls`: certificates signed by the test CA in DIR/tls, each
// naming its node's IP and one shared DNS name). With the CA and the shared
// server_name partmon verifies every node and reads every source. With a CA
// the nodes do not chain to, or a server_name their certificates do not
// name, every node fails with a certificate error that says so — and
// partmon keeps serving. Without TLS every node closes the connection
// (plainClientRefused).
//
// With mutual TLS (`cluster up --tls-client-auth`, as make faults starts it:
// require_client_auth, the nodes trust only DIR/tls/ca.pem) the good run's
// client certificate is the one the cluster issued, so the run proves it is
// accepted; runs without a client certificate, with one from another CA, and
// with one from another CA that bears the cluster CA's name must be refused
// by every node, each saying so, and keep serving. On a cluster without
// require_client_auth the same three runs must read every source: what
// refuses them is the client-certificate check alone.
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

	// One partmon at a time while the good one connects: TLS handshakes on a
	// busy 2-core machine need more than the harness's 2 s connect timeout.
	const timeout = 5 * time.Second
	good := c.startPartmon(t, "partmon-tls", options{creds: creds, queryTimeout: timeout, tls: clientCert(map[string]any{
		"enabled": true, "ca_file": c.env["TLS_CA"], "server_name": c.env["TLS_SERVER_NAME"]})})
	good.waitReady(60 * time.Second)
	waitEverySourceOK(good, c.hosts, "every source ok on every node over verified TLS")

	specs := []tlsRun{
		{"CA the nodes do not chain to", "partmon-tls-wrong-ca", clientCert(map[string]any{"enabled": true, "ca_file": otherCAFile}),
			"x509: certificate signed by unknown authority"},
		{"server_name the certificates do not name", "partmon-tls-wrong-name", clientCert(map[string]any{
			"enabled": true, "ca_file": c.env["TLS_CA"], "server_name": "wrong.partmon.test"}), "x509: certificate is valid for"},
		{"no TLS", "partmon-no-tls", map[string]any{"enabled": false}, plainClientRefused},
	}
	clientCertRuns := mutualTLSRefusals(t, c, otherCA)
	if c.env["TLS_CLIENT_AUTH"] == "true" {
		specs = append(specs, clientCertRuns...)
	}
	type failingRun struct {
		name, wantErr string
		d             *daemon
	}
	var failing []failingRun
	for _, sp := range specs {
		failing = append(failing, failingRun{sp.name, sp.wantErr,
			c.startPartmon(t, sp.proc, options{creds: creds, queryTimeout: timeout, tls: sp.tls})})
	}

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
	if c.env["TLS_CLIENT_AUTH"] != "true" {
		// Without require_client_auth the same runs are accepted: what refuses
		// them under make faults is the client-certificate check, nothing else.
		for _, f := range failing {
			f.d.terminate()
		}
		for _, run := range clientCertRuns {
			d := c.startPartmon(t, run.proc, options{creds: creds, queryTimeout: timeout, tls: run.tls})
			took := waitEverySourceOK(d, c.hosts, run.name+": accepted by a cluster that does not require client certificates")
			d.terminate()
			t.Logf("%s: accepted without require_client_auth, every source read after %s", run.name, took.Round(100*time.Millisecond))
		}
	}
}

// plainClientRefused is what a CQL client without TLS gets from a node
// that accepts only TLS clients (client_encryption_options enabled, not
// optional): the node's TLS engine reads the client's first frame as a
// TLS record that is none and resets the connection (docs/operations.md,
// "TLS"). Measured on Cassandra 5.0.8.
const plainClientRefused = "connection reset by peer"

// waitEverySourceOK waits until d has read every source on every node
// without an error, and says how long that took.
func waitEverySourceOK(d *daemon, hosts []string, what string) time.Duration {
	return d.waitFor(90*time.Second, what, func() (bool, string) {
		rep, err := d.report()
		if err != nil {
			return false, err.Error()
		}
		if ok, why := everySourceRan(rep, hosts); !ok {
			return false, why
		}
		for _, s := range rep.Sources {
			if s.State == model.StateError {
				return false, s.Source + "@" + s.Node + ": " + s.Error
			}
		}
		return true, ""
	})
}
