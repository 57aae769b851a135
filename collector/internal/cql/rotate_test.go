package cql

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/partmon/partmon/tools/testcluster"
)

// tlsNode is a TLS server requiring a client certificate, as a node with
// require_client_auth: its certificate and trusted CA can be swapped.
type tlsNode struct {
	addr string
	cfg  atomic.Pointer[tls.Config]
}

func newTLSNode(t *testing.T) *tlsNode {
	t.Helper()
	n := &tlsNode{}
	l, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		MinVersion:         tls.VersionTLS12,
		GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) { return n.cfg.Load(), nil },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	n.addr = l.Addr().String()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				_ = c.(*tls.Conn).Handshake()
				c.Close()
			}()
		}
	}()
	return n
}

// use makes the node serve a certificate of ca and trust only ca's clients.
func (n *tlsNode) use(t *testing.T, ca *testcluster.CA) {
	t.Helper()
	certPEM, keyPEM, err := ca.Issue("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	clients := x509.NewCertPool()
	clients.AppendCertsFromPEM(ca.PEM)
	n.cfg.Store(&tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: clients})
}

// handshake dials the node with cfg and completes a TLS handshake: with
// TLS 1.3 the client learns that its certificate was refused on its first
// read, so it reads.
func handshake(addr string, cfg *tls.Config) error {
	raw, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	c := tls.Client(raw, cfg)
	defer c.Close()
	if err := c.Handshake(); err != nil {
		return err
	}
	_, err = c.Read(make([]byte, 1))
	if err != nil && strings.Contains(err.Error(), "EOF") {
		return nil // the node closed after a good handshake
	}
	return err
}

func newCA(t *testing.T, name string) *testcluster.CA {
	t.Helper()
	ca, err := testcluster.NewCA(name)
	if err != nil {
		t.Fatal(err)
	}
	return ca
}

// writeClientFiles puts ca's certificate and a client certificate of ca at
// the same three paths every time, as a rotated Secret does.
func writeClientFiles(t *testing.T, dir string, ca *testcluster.CA) *TLS {
	t.Helper()
	tmp := t.TempDir()
	cert, key, err := ca.IssueClient(tmp, "partmon")
	if err != nil {
		t.Fatal(err)
	}
	files := &TLS{CAFile: filepath.Join(dir, "ca.pem"), CertFile: filepath.Join(dir, "client.pem"), KeyFile: filepath.Join(dir, "client-key.pem")}
	for from, to := range map[string]string{cert: files.CertFile, key: files.KeyFile} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(files.CAFile, ca.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return files
}

// TestRotatingTLS: one tls.Config, built once as a session's is, follows
// the CA, client certificate and key files as they are rewritten, and
// still refuses a node its current CA did not sign or a name the node's
// certificate does not carry.
func TestRotatingTLS(t *testing.T) {
	node := newTLSNode(t)
	dir := t.TempDir()
	first, second := newCA(t, "first CA"), newCA(t, "second CA")

	node.use(t, first)
	files := writeClientFiles(t, dir, first)
	cfg := rotatingTLS(files, "127.0.0.1")
	if err := handshake(node.addr, cfg); err != nil {
		t.Fatalf("before rotation: %v", err)
	}

	// The node rotates first: the client's files still name the first CA.
	node.use(t, second)
	if err := handshake(node.addr, cfg); err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("node rotated, client files not yet: %v, want an unknown-authority error", err)
	}
	// Then the Secret: the same config, no new session.
	writeClientFiles(t, dir, second)
	if err := handshake(node.addr, cfg); err != nil {
		t.Fatalf("after rotating the files: %v", err)
	}

	wrongName := *files
	wrongName.ServerName = "wrong.partmon.test"
	if err := handshake(node.addr, rotatingTLS(&wrongName, "127.0.0.1")); err == nil || !strings.Contains(err.Error(), "wanted to match wrong.partmon.test") {
		t.Errorf("server_name the certificate lacks: %v", err)
	}
	if err := handshake(node.addr, rotatingTLS(files, "127.0.0.2")); err == nil || !strings.Contains(err.Error(), "127.0.0.2") {
		t.Errorf("a node address the certificate lacks: %v", err)
	}
	insecure := *files
	insecure.InsecureSkipVerify = true
	if err := os.WriteFile(files.CAFile, first.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := handshake(node.addr, rotatingTLS(&insecure, "127.0.0.1")); err != nil {
		t.Errorf("insecure_skip_verify with a CA that does not match: %v", err)
	}
	noCert := TLS{CAFile: files.CAFile}
	if err := os.WriteFile(files.CAFile, second.PEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := handshake(node.addr, rotatingTLS(&noCert, "127.0.0.1")); err == nil {
		t.Error("a node requiring a client certificate accepted none")
	}
}

// TestRotatingPassword: the password file is read at every
// authentication, and its errors never carry the password.
func TestRotatingPassword(t *testing.T) {
	file := filepath.Join(t.TempDir(), "password")
	auth := rotatingAuth{user: "partmon", file: file}
	const class = "org.apache.cassandra.auth.PasswordAuthenticator"
	for _, pw := range []string{"first-secret", "second-secret"} {
		if err := os.WriteFile(file, []byte(pw+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		resp, _, err := auth.Challenge([]byte(class))
		if err != nil {
			t.Fatal(err)
		}
		if want := "\x00partmon\x00" + pw; string(resp) != want {
			t.Errorf("response %q, want %q", resp, want)
		}
	}
	if err := os.WriteFile(file, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, _, err := auth.Challenge([]byte(class)); err == nil || !strings.Contains(err.Error(), "is empty") {
		t.Errorf("empty file: %v", err)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	_, _, err := auth.Challenge([]byte(class))
	if err == nil || !strings.Contains(err.Error(), "collector.password_file") || strings.Contains(err.Error(), "secret") {
		t.Errorf("missing file: %v", err)
	}
	fixed := rotatingAuth{user: "partmon", password: "fixed-secret"}
	if resp, _, err := fixed.Challenge([]byte(class)); err != nil || string(resp) != "\x00partmon\x00fixed-secret" {
		t.Errorf("fixed password: %q %v", resp, err)
	}
}
