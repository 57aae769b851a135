package collector

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"reflect"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
	"go.uber.org/zap"
)

// nodeConn is partmon's link to one node: a long-lived gocql session pinned
// to that node, created lazily and re-created after repeated failures, with
// at most one query in flight and a backoff while the node keeps failing.
type nodeConn struct {
	addr string // IP, the node label
	port int
	cfg  *Config
	log  *zap.Logger

	inflight chan struct{}       // one slot: at most one query on this node at a time
	queries  atomic.Int64        // statements sent, for measurements
	observer gocql.QueryObserver // set by the Collector before the first connect; may be nil

	now func() time.Time

	connMu   sync.Mutex // serialises connecting and probing
	mu       sync.Mutex // guards the fields below
	session  *gocql.Session
	caps     *Capabilities
	failures int
	retryAt  time.Time
	lastErr  error
}

func newNodeConn(addr string, port int, cfg *Config, log *zap.Logger) *nodeConn {
	return &nodeConn{
		addr:     addr,
		port:     port,
		cfg:      cfg,
		log:      log.With(zap.String("node", addr)),
		inflight: make(chan struct{}, 1),
		now:      time.Now,
	}
}

// errBackoff is returned while a failing node waits for its next attempt.
var errBackoff = errors.New("backing off")

// querier returns a Querier bound to this node, connecting and probing the
// node's capabilities first if needed. Only connection set-up is serialised
// (connMu); the state lock mu is never held across network calls.
func (n *nodeConn) querier(ctx context.Context) (*nodeQuerier, error) {
	n.connMu.Lock()
	defer n.connMu.Unlock()
	n.mu.Lock()
	s, caps := n.session, n.caps
	backoff := n.backoffErrLocked()
	n.mu.Unlock()
	if s != nil && caps != nil {
		return &nodeQuerier{conn: n, session: s, caps: caps}, nil
	}
	if backoff != nil {
		return nil, backoff
	}
	if s == nil {
		var err error
		if s, err = n.connect(); err != nil {
			err = fmt.Errorf("connecting to %s: %w", n.addr, err)
			n.failed(ctx, err)
			return nil, err
		}
		n.mu.Lock()
		n.session = s
		n.mu.Unlock()
	}
	q := &nodeQuerier{conn: n, session: s}
	caps, err := probeCapabilities(ctx, q) // Select records transport failures itself
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	if n.session == s {
		n.caps = caps
	}
	n.mu.Unlock()
	q.caps = caps
	n.log.Debug("connected", zap.String("engine", string(caps.Engine)), zap.String("version", caps.Version))
	return q, nil
}

func (n *nodeConn) backoffErrLocked() error {
	if wait := n.retryAt.Sub(n.now()); wait > 0 {
		return fmt.Errorf("%w: node %s failed %d times in a row, next attempt in %s; last error: %v",
			errBackoff, n.addr, n.failures, wait.Round(time.Second), n.lastErr)
	}
	return nil
}

func (n *nodeConn) backoffErr() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.backoffErrLocked()
}

func (n *nodeConn) connect() (*gocql.Session, error) {
	ip := net.ParseIP(n.addr)
	if ip == nil {
		return nil, fmt.Errorf("address %q is not an IP", n.addr)
	}
	cc := gocql.NewCluster(net.JoinHostPort(n.addr, strconv.Itoa(n.port)))
	// The whitelist keeps both the control connection and the pool on this
	// node; without peers lookup the driver never reads the ring itself.
	cc.HostFilter = gocql.WhiteListHostFilter(ip.String())
	cc.DisableInitialHostLookup = true
	cc.Events.DisableTopologyEvents = true
	cc.Events.DisableSchemaEvents = true
	cc.Events.DisableNodeStatusEvents = true
	cc.NumConns = 1
	cc.ProtoVersion = n.cfg.ProtoVersion
	cc.ConnectTimeout = n.cfg.ConnectTimeout
	cc.Dialer = setupDeadlineDialer{net.Dialer{Timeout: n.cfg.ConnectTimeout}}
	cc.Timeout = n.cfg.QueryTimeout
	cc.PageSize = n.cfg.PageSize
	cc.Consistency = n.cfg.consistency()
	cc.DefaultIdempotence = true
	cc.QueryObserver = n.observer
	// The driver's own messages (dial failures, reconnects) repeat what the
	// collector logs once per failed run, so they go to Debug.
	if l, err := zap.NewStdLogAt(n.log.Named("gocql"), zap.DebugLevel); err == nil {
		cc.Logger = l
	}
	if n.cfg.Username != "" {
		cc.Authenticator = gocql.PasswordAuthenticator{Username: n.cfg.Username, Password: n.cfg.password}
	}
	if n.cfg.TLS.Enabled {
		cc.SslOpts = &gocql.SslOptions{
			Config: &tls.Config{
				MinVersion:         tls.VersionTLS12,
				ServerName:         n.cfg.TLS.ServerName,
				InsecureSkipVerify: n.cfg.TLS.InsecureSkipVerify, //nolint:gosec // the operator's explicit choice
			},
			CaPath:                 n.cfg.TLS.CAFile,
			CertPath:               n.cfg.TLS.CertFile,
			KeyPath:                n.cfg.TLS.KeyFile,
			EnableHostVerification: !n.cfg.TLS.InsecureSkipVerify,
		}
	}
	return cc.CreateSession()
}

// failedLocked counts a failure of the node and schedules the next attempt.
// Failures caused by the caller giving up (shutdown) do not count.
func (n *nodeConn) failedLocked(ctx context.Context, err error) {
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return
	}
	n.failures++
	n.lastErr = err
	backoff := n.cfg.RetryBackoff << min(n.failures-1, 20)
	if backoff > n.cfg.MaxRetryBackoff || backoff <= 0 {
		backoff = n.cfg.MaxRetryBackoff
	}
	n.retryAt = n.now().Add(backoff)
	// A session that keeps failing is dropped so the next attempt starts
	// from a fresh connection instead of waiting for the driver's reconnect.
	if n.session != nil && n.failures >= 2 {
		// Closed in the background: the driver can take seconds to close a
		// session to a hung node, and mu must not be held that long.
		go n.session.Close()
		n.session = nil
		n.caps = nil
	}
}

func (n *nodeConn) failed(ctx context.Context, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.failedLocked(ctx, err)
}

func (n *nodeConn) succeeded() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.failures = 0
	n.retryAt = time.Time{}
	n.lastErr = nil
}

func (n *nodeConn) close() {
	n.mu.Lock()
	s := n.session
	n.session, n.caps = nil, nil
	n.mu.Unlock()
	if s != nil {
		s.Close() // outside mu: it can take seconds on a hung node
	}
}

// nodeQuerier is the gocql Querier of one node.
type nodeQuerier struct {
	conn    *nodeConn
	session *gocql.Session
	caps    *Capabilities
}

var _ Querier = (*nodeQuerier)(nil)

func (q *nodeQuerier) Address() string { return q.conn.addr }

// Select runs one statement on the pinned node. It waits for the node's
// single query slot, so sources never pile queries onto one node.
func (q *nodeQuerier) Select(ctx context.Context, stmt string, args []any, each func(Row) error) error {
	if err := q.conn.backoffErr(); err != nil {
		return err
	}
	select {
	case q.conn.inflight <- struct{}{}:
	case <-ctx.Done():
		return fmt.Errorf("waiting for %s's query slot: %w", q.conn.addr, ctx.Err())
	}
	defer func() { <-q.conn.inflight }()

	q.conn.queries.Add(1)
	iter := q.session.Query(stmt, args...).
		WithContext(ctx).
		Consistency(q.conn.cfg.consistency()).
		PageSize(q.conn.cfg.PageSize).
		Idempotent(true).
		Iter()
	if h := iter.Host(); h != nil && h.ConnectAddress().String() != q.conn.addr {
		_ = iter.Close()
		return fmt.Errorf("%s answered a query pinned to %s", h.ConnectAddress(), q.conn.addr)
	}
	cols := iter.Columns()
	for {
		dest, ptrs, names := scanTargets(cols)
		if !iter.Scan(dest...) {
			break
		}
		row := make(Row, len(names))
		for i, name := range names {
			row[name] = derefNullable(ptrs[i])
		}
		if err := each(row); err != nil {
			_ = iter.Close()
			return err // the node answered; the answer was bad
		}
	}
	err := iter.Close()
	switch {
	case err == nil || isServerError(err):
		// A CQL error response still proves the node is alive.
		q.conn.succeeded()
	default:
		q.conn.failed(ctx, err)
	}
	return err
}

// scanTargets allocates one **T per result column, so NULL stays
// distinguishable from a zero value (gocql sets the inner pointer to nil).
// Top-level tuples are flattened the way gocql's own RowData does.
func scanTargets(cols []gocql.ColumnInfo) (dest []any, ptrs []reflect.Value, names []string) {
	add := func(name string, t gocql.TypeInfo) {
		v, err := t.NewWithError()
		if err != nil {
			var raw []byte // unknown type: keep the raw bytes rather than fail the row
			v = &raw
		}
		pp := reflect.New(reflect.TypeOf(v))
		dest = append(dest, pp.Interface())
		ptrs = append(ptrs, pp)
		names = append(names, name)
	}
	for _, c := range cols {
		if tup, ok := c.TypeInfo.(gocql.TupleTypeInfo); ok {
			for i, e := range tup.Elems {
				add(gocql.TupleColumnName(c.Name, i), e)
			}
			continue
		}
		add(c.Name, c.TypeInfo)
	}
	return dest, ptrs, names
}

func derefNullable(pp reflect.Value) any {
	p := pp.Elem() // *T
	if p.IsNil() {
		return nil
	}
	v := p.Elem().Interface()
	if u, ok := v.(gocql.UUID); ok {
		return u.String()
	}
	return v
}

// isServerError says whether err is an answer from the node (a CQL error
// response), which proves the node is alive, as opposed to a transport failure.
func isServerError(err error) bool {
	var re gocql.RequestError
	return errors.As(err, &re)
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
		conn.Close()
		return nil, err
	}
	return conn, nil
}
