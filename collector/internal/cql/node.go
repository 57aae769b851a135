package cql

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gocql/gocql"
	"go.uber.org/zap"
)

// Options are the session settings shared by every node.
type Options struct {
	ProtoVersion   int // 0 negotiates
	ConnectTimeout time.Duration
	QueryTimeout   time.Duration
	PageSize       int
	Consistency    gocql.Consistency
	Username       string // no authentication when empty
	Password       string
	// PasswordFile, when set, is read at every authentication instead of
	// Password: a rotated file needs no restart.
	PasswordFile string
	TLS          *TLS // nil: plain text
	// RetryBackoff is the wait after a node's first failure, doubled on
	// each further failure up to MaxRetryBackoff.
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	// Observer sees every page of every request; may be nil.
	Observer gocql.QueryObserver
	// IdleClose, when above 0, closes a node's session once no statement
	// has run on it for this long; the next statement re-opens it (no new
	// probe). gocql v1.7 sends an OPTIONS heartbeat every 5 s on each of a
	// session's two connections, whatever the configuration: 24 requests a
	// node a minute that carry no data (docs/benchmarks.md, "Requests per
	// node per minute").
	IdleClose time.Duration
}

// TLS is client TLS towards the CQL port.
type TLS struct {
	CAFile, CertFile, KeyFile string
	ServerName                string
	InsecureSkipVerify        bool
}

// Node is partmon's link to one node: a long-lived gocql session pinned to
// that node, created lazily and re-created after repeated failures, with at
// most one query in flight and a backoff while the node keeps failing.
// Every new session is probed once before it serves queries; P is what the
// probe learns (the collector: the node's capabilities) and lives as long
// as the session.
type Node[P any] struct {
	addr  string // IP, the node label
	port  int
	opts  *Options
	probe func(context.Context, Querier) (P, error)
	log   *zap.Logger

	inflight chan struct{} // one slot: at most one query on this node at a time
	queries  atomic.Int64  // statements sent, for measurements

	now func() time.Time

	connMu   sync.Mutex // serialises connecting and probing
	mu       sync.Mutex // guards the fields below
	session  *gocql.Session
	probed   bool // info belongs to session
	info     P
	failures int
	retryAt  time.Time
	lastErr  error
	// idleClosed: session was closed by IdleClose while info stays valid;
	// the next Select re-opens it.
	idleClosed bool
	lastUsed   time.Time
	idleTimer  *time.Timer
}

// NewNode returns the link to the node at addr:port. It does not connect.
func NewNode[P any](addr string, port int, opts *Options, probe func(context.Context, Querier) (P, error), log *zap.Logger) *Node[P] {
	return &Node[P]{
		addr:     addr,
		port:     port,
		opts:     opts,
		probe:    probe,
		log:      log.With(zap.String("node", addr)),
		inflight: make(chan struct{}, 1),
		now:      time.Now,
	}
}

// ErrBackoff is what a BackoffError is (errors.Is).
var ErrBackoff = errors.New("backing off")

// BackoffError is returned while a failing node waits for its next attempt.
type BackoffError struct {
	Node     string // the node's address
	Failures int    // attempts in a row that failed
	Wait     time.Duration
	Last     error // the last failure, as its caller got it
}

func (e *BackoffError) Error() string {
	return fmt.Sprintf("%v: node %s failed %d times in a row, next attempt in %s; last error: %v",
		ErrBackoff, e.Node, e.Failures, e.Wait.Round(time.Second), e.Last)
}

// Is makes errors.Is(err, ErrBackoff) true.
func (e *BackoffError) Is(target error) bool { return target == ErrBackoff }

// Address is the node's IP.
func (n *Node[P]) Address() string { return n.addr }

// Endpoint is the node's host:port as partmon dials it.
func (n *Node[P]) Endpoint() string { return net.JoinHostPort(n.addr, strconv.Itoa(n.port)) }

// Failure is how many attempts in a row failed (connecting, or a query the
// node never answered) and the last one's error; 0 and nil while healthy.
func (n *Node[P]) Failure() (failures int, last error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.failures, n.lastErr
}

// Statements is the number of statements sent to the node so far; a
// statement read over several pages counts once.
func (n *Node[P]) Statements() int64 { return n.queries.Load() }

// Querier returns a Querier bound to this node and what the probe learnt,
// connecting and probing first if needed. Only connection set-up is
// serialised (connMu); the state lock mu is never held across network calls.
func (n *Node[P]) Querier(ctx context.Context) (Querier, P, error) {
	var none P
	n.connMu.Lock()
	defer n.connMu.Unlock()
	n.mu.Lock()
	s, info, probed := n.session, n.info, n.probed
	backoff := n.backoffErrLocked()
	n.mu.Unlock()
	if probed && (s != nil || n.isIdleClosed()) {
		return &pinned[P]{node: n, session: s}, info, nil
	}
	if backoff != nil {
		return nil, none, backoff
	}
	if s == nil {
		var err error
		if s, err = n.connect(n.opts.ProtoVersion); err != nil {
			err = fmt.Errorf("connecting to %s: %w", n.addr, err)
			n.failed(ctx, err)
			return nil, none, err
		}
		n.mu.Lock()
		n.session = s
		n.mu.Unlock()
	}
	q := &pinned[P]{node: n, session: s}
	info, err := n.probe(ctx, q) // Select records transport failures itself
	if err != nil {
		return nil, none, err
	}
	n.mu.Lock()
	if n.session == s {
		n.info, n.probed = info, true
	}
	n.mu.Unlock()
	return q, info, nil
}

func (n *Node[P]) backoffErrLocked() error {
	if wait := n.retryAt.Sub(n.now()); wait > 0 {
		return &BackoffError{Node: n.addr, Failures: n.failures, Wait: wait, Last: n.lastErr}
	}
	return nil
}

func (n *Node[P]) backoffErr() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.backoffErrLocked()
}

// failedLocked counts a failure of the node and schedules the next attempt.
// Failures caused by the caller giving up (shutdown) do not count.
func (n *Node[P]) failedLocked(ctx context.Context, err error) {
	if ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return
	}
	n.failures++
	n.lastErr = err
	backoff := n.opts.RetryBackoff << min(n.failures-1, 20)
	if backoff > n.opts.MaxRetryBackoff || backoff <= 0 {
		backoff = n.opts.MaxRetryBackoff
	}
	n.retryAt = n.now().Add(backoff)
	// A session that keeps failing is dropped so the next attempt starts
	// from a fresh connection instead of waiting for the driver's reconnect.
	if n.session != nil && n.failures >= 2 {
		// Closed in the background: the driver can take seconds to close a
		// session to a hung node, and mu must not be held that long.
		go n.session.Close()
		n.session = nil
		n.dropInfoLocked()
	}
}

func (n *Node[P]) dropInfoLocked() {
	var none P
	n.info, n.probed, n.idleClosed = none, false, false
}

func (n *Node[P]) isIdleClosed() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.idleClosed
}

// sessionFor is the session a Select through q runs on: the node's current
// one, re-opened if IdleClose closed it. The caller holds the query slot.
func (n *Node[P]) sessionFor(q *pinned[P]) (*gocql.Session, error) {
	n.mu.Lock()
	s, idle := n.session, n.idleClosed
	n.mu.Unlock()
	switch {
	case s != nil:
		return s, nil
	case !idle:
		return q.session, nil // dropped after failures: fails as closed
	}
	s, err := n.reconnect()
	if err != nil {
		return nil, fmt.Errorf("connecting to %s: %w", n.addr, err)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.idleClosed { // dropped meanwhile
		go s.Close()
		return q.session, nil
	}
	n.session, n.idleClosed = s, false
	return s, nil
}

// reconnect re-opens an idle-closed session. Without a configured protocol
// version it tries v4 first, the version gocql's negotiation tries first
// and every Cassandra 4.0+ and ScyllaDB speaks: negotiating costs the node
// one more connection each time. If the node refuses v4, it negotiates;
// any other failure (a node down) is not tried twice.
func (n *Node[P]) reconnect() (*gocql.Session, error) {
	if n.opts.ProtoVersion != 0 {
		return n.connect(n.opts.ProtoVersion)
	}
	s, err := n.connect(4)
	if err != nil && (strings.Contains(err.Error(), "protocol version") || strings.Contains(err.Error(), "supported version")) {
		return n.connect(0)
	}
	return s, err
}

// used re-arms the idle timer after a statement.
func (n *Node[P]) used() {
	if n.opts.IdleClose <= 0 {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lastUsed = n.now()
	if n.idleTimer == nil {
		n.idleTimer = time.AfterFunc(n.opts.IdleClose, n.closeIfIdle)
	} else {
		n.idleTimer.Reset(n.opts.IdleClose)
	}
}

// closeIfIdle closes the session if no statement ran for IdleClose; it
// takes the query slot so that no statement is running on it meanwhile.
func (n *Node[P]) closeIfIdle() {
	select {
	case n.inflight <- struct{}{}:
	default:
		return // a statement is running; it re-arms the timer
	}
	defer func() { <-n.inflight }()
	n.mu.Lock()
	s := n.session
	if s == nil || !n.probed || n.now().Sub(n.lastUsed) < n.opts.IdleClose {
		n.mu.Unlock()
		return
	}
	n.session, n.idleClosed = nil, true
	n.mu.Unlock()
	go s.Close() // it can take seconds on a hung node
}

func (n *Node[P]) failed(ctx context.Context, err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.failedLocked(ctx, err)
}

func (n *Node[P]) succeeded() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.failures = 0
	n.retryAt = time.Time{}
	n.lastErr = nil
}

// Close closes the node's session, if any; a later Querier reconnects.
func (n *Node[P]) Close() {
	n.mu.Lock()
	s := n.session
	n.session = nil
	n.dropInfoLocked()
	if n.idleTimer != nil {
		n.idleTimer.Stop()
	}
	n.mu.Unlock()
	if s != nil {
		s.Close() // outside mu: it can take seconds on a hung node
	}
}
