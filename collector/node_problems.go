package collector

import (
	"fmt"
	"net"
	"sort"
	"strings"
)

// NodeProblem says, for people, why partmon could not use a node and what to
// check, in the terms of the configuration.
type NodeProblem struct {
	Endpoint string // host:port as dialled
	Failures int    // attempts in a row that failed
	Cause    string // the last failure, without the driver's wrapping
	Check    string // what to check
}

// String is the problem on one line.
func (p NodeProblem) String() string {
	return fmt.Sprintf("%s: %s. Check %s.", p.Endpoint, p.Cause, p.Check)
}

// NodeProblems lists, by address, the nodes whose last connection attempt or
// query failed (not a CQL error answer: that proves the node is up). A node
// partmon never dialled (a name that does not resolve) is not listed.
func (c *Collector) NodeProblems() []NodeProblem {
	c.mu.Lock()
	conns := make([]*nodeConn, 0, len(c.conns))
	for _, n := range c.conns {
		conns = append(conns, n)
	}
	c.mu.Unlock()
	sort.Slice(conns, func(i, j int) bool { return conns[i].Address() < conns[j].Address() })
	var out []NodeProblem
	for _, n := range conns {
		failures, err := n.Failure()
		if failures == 0 || err == nil {
			continue
		}
		cause, check := diagnose(err, n.Endpoint(), c.cfg)
		out = append(out, NodeProblem{Endpoint: n.Endpoint(), Failures: failures, Cause: cause, Check: check})
	}
	return out
}

// driverWrapping are the prefixes gocql and the session layer put before the
// network's own message; they say nothing the endpoint does not.
var driverWrapping = []string{
	"gocql: unable to create session: ",
	"unable to discover protocol version: ",
	"gocql: unable to connect to initial hosts: ",
}

// diagnose turns a node's last failure into its cause and what to check.
// The driver flattens its errors into text (fmt %v), so the kind of failure
// is recognised by the messages of net, crypto/tls and the CQL server.
func diagnose(err error, endpoint string, cfg Config) (cause, check string) {
	cause = err.Error()
	if host, _, splitErr := net.SplitHostPort(endpoint); splitErr == nil {
		cause = strings.TrimPrefix(cause, "connecting to "+host+": ")
	}
	for _, w := range driverWrapping {
		cause = strings.TrimPrefix(cause, w)
	}
	_, port, _ := net.SplitHostPort(endpoint)
	everything := fmt.Sprintf("the address, native_transport_port (%s here: collector.port, or host:port), TLS (collector.tls) and credentials (collector.username)", port)
	const thenTLSAndCredentials = "; once it connects, TLS (collector.tls) and credentials (collector.username)"
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(strings.ToLower(cause), s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("connection refused"):
		check = fmt.Sprintf("the address and native_transport_port (%s here: collector.port, or host:port): nothing listens there", port) + thenTLSAndCredentials
	case has("x509:", "tls:", "certificate"):
		check = "TLS: collector.tls (enabled, ca_file, server_name) must match the node's client_encryption_options"
	case has("authentication", "password", "credentials", "unauthorized"):
		check = "the credentials: collector.username and collector.password or password_file (the role needs LOGIN)"
	case has("timeout", "no route to host", "network is unreachable", "deadline exceeded", "no response received"):
		check = fmt.Sprintf("that the node is up at that address and that nothing drops port %s on the way (no answer within collector.connect_timeout, %s)",
			port, cfg.ConnectTimeout) + thenTLSAndCredentials
	default:
		check = everything
	}
	return cause, check
}
