package cql

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gocql/gocql"
)

// Secrets rotate in place (a Kubernetes Secret, a renewed certificate), so
// nothing here is read once: the password file at every connection's
// authentication, the client certificate, its key and the CA at every TLS
// handshake. A session that is already connected keeps its connections; a
// new connection (a reconnect, a new session after failures, a restarted
// node) uses the files as they are then. gocql v1.7 reads SslOptions' files
// once per session, which is why partmon builds the tls.Config itself.

// rotatingAuth is gocql's PasswordAuthenticator with the password read from
// file at every authentication (or the fixed password when file is "").
type rotatingAuth struct {
	user, password, file string
}

func (a rotatingAuth) Challenge(req []byte) ([]byte, gocql.Authenticator, error) {
	pw := a.password
	if a.file != "" {
		p, err := ReadPasswordFile(a.file)
		if err != nil {
			return nil, nil, err
		}
		pw = p
	}
	return gocql.PasswordAuthenticator{Username: a.user, Password: pw}.Challenge(req)
}

func (a rotatingAuth) Success([]byte) error { return nil }

// ReadPasswordFile reads a password file, a trailing newline trimmed. Its
// errors name the file, never its content.
func ReadPasswordFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("reading collector.password_file: %w", err)
	}
	pw := strings.TrimRight(string(b), "\r\n")
	if pw == "" {
		return "", fmt.Errorf("collector.password_file %s is empty", path)
	}
	return pw, nil
}

// rotatingTLS is t as a tls.Config whose client certificate and trusted CA
// are read at every handshake. host is the node's address: without
// server_name the node's certificate must name it, as gocql checks.
func rotatingTLS(t *TLS, host string) *tls.Config {
	cfg := &tls.Config{
		MinVersion: tls.VersionTLS12,
		ServerName: t.ServerName,
		// crypto/tls's own check would use a CA pool fixed at creation:
		// VerifyConnection below does the same check with the current CA.
		InsecureSkipVerify: true, //nolint:gosec // verified in VerifyConnection unless the operator said not to
	}
	if t.CertFile != "" {
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			c, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
			if err != nil {
				return nil, fmt.Errorf("loading collector.tls.cert_file and key_file: %w", err)
			}
			return &c, nil
		}
	}
	if t.InsecureSkipVerify {
		return cfg
	}
	name := t.ServerName
	if name == "" {
		name = host
	}
	cfg.VerifyConnection = func(cs tls.ConnectionState) error {
		return verifyPeer(cs.PeerCertificates, t.CAFile, name)
	}
	return cfg
}

// verifyPeer checks the node's chain against the CA in caFile as it is now
// (the system roots when caFile is ""), and that it names name.
func verifyPeer(chain []*x509.Certificate, caFile, name string) error {
	if len(chain) == 0 {
		return errors.New("the node sent no certificate")
	}
	var roots *x509.CertPool
	if caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return fmt.Errorf("reading collector.tls.ca_file: %w", err)
		}
		roots = x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return fmt.Errorf("collector.tls.ca_file %s holds no PEM certificate", caFile)
		}
	}
	opts := x509.VerifyOptions{Roots: roots, DNSName: name, Intermediates: x509.NewCertPool()}
	for _, c := range chain[1:] {
		opts.Intermediates.AddCert(c)
	}
	_, err := chain[0].Verify(opts)
	return err
}
