package cql

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/gocql/gocql"
	"go.uber.org/zap"
)

// connect opens a session that only ever talks to this node, on protocol
// version proto (0 negotiates).
func (n *Node[P]) connect(proto int) (*gocql.Session, error) {
	ip := net.ParseIP(n.addr)
	if ip == nil {
		return nil, fmt.Errorf("address %q is not an IP", n.addr)
	}
	o := n.opts
	cc := gocql.NewCluster(net.JoinHostPort(n.addr, strconv.Itoa(n.port)))
	// The whitelist keeps both the control connection and the pool on this
	// node; without peers lookup the driver never reads the ring itself.
	cc.HostFilter = gocql.WhiteListHostFilter(ip.String())
	cc.DisableInitialHostLookup = true
	cc.Events.DisableTopologyEvents = true
	cc.Events.DisableSchemaEvents = true
	cc.Events.DisableNodeStatusEvents = true
	cc.NumConns = 1
	cc.ProtoVersion = proto
	cc.ConnectTimeout = o.ConnectTimeout
	// The host dialer is gocql's default one (the TCP dialer below, TLS by
	// gocql.WrapTLS) with the connection guarded against the driver's
	// heartbeat panic (heartbeat.go); it replaces Dialer and SslOpts.
	hd := guardDialer{dialer: setupDeadlineDialer{net.Dialer{Timeout: o.ConnectTimeout}}}
	cc.Timeout = o.QueryTimeout
	cc.PageSize = o.PageSize
	cc.Consistency = o.Consistency
	cc.DefaultIdempotence = true
	cc.QueryObserver = o.Observer
	// The driver's own messages (dial failures, reconnects) repeat what the
	// collector logs once per failed run, so they go to Debug.
	if l, err := zap.NewStdLogAt(n.log.Named("gocql"), zap.DebugLevel); err == nil {
		cc.Logger = l
	}
	if o.Username != "" {
		cc.Authenticator = rotatingAuth{user: o.Username, password: o.Password, file: o.PasswordFile}
	}
	if t := o.TLS; t != nil {
		hd.tls = rotatingTLS(t, ip.String())
	}
	cc.HostDialer = hd
	return cc.CreateSession()
}

// setupDeadlineDialer bounds a connection's whole set-up, TLS handshake
// included, by the connect timeout: gocql v1.7 applies ConnectTimeout to the
// TCP connect only, so a TLS handshake with a node that accepts connections
// and never answers (paused, overloaded) would wait forever. gocql sets its
// own read and write deadlines on every later read and write.
type setupDeadlineDialer struct{ net.Dialer }

func (d setupDeadlineDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := d.Dialer.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	if err := conn.SetDeadline(time.Now().Add(d.Timeout)); err != nil {
		_ = conn.Close() // the deadline's error is the one to report
		return nil, err
	}
	return conn, nil
}
