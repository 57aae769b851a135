package cql

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"sync"

	"github.com/gocql/gocql"
)

// gocql v1.7.0 panics on the goroutine of a connection's heartbeat when a
// node answers its OPTIONS with anything but SUPPORTED or ERROR (Conn.heartBeat,
// controlConn.heartBeat: the default arm of a type switch), and no recover
// of partmon's reaches that goroutine: the process would end. guardConn
// reads the frame headers going both ways and fails the connection, with an
// error the driver handles (it reconnects), before such a reply is read.

// Native protocol opcodes (native_protocol_v4.spec, section 2.4).
const (
	opError     = 0x00
	opOptions   = 0x05
	opSupported = 0x06
)

// errUnexpectedReply is what a read fails with on such a reply.
var errUnexpectedReply = errors.New("node answered OPTIONS with neither SUPPORTED nor ERROR: connection closed (the driver would have panicked)")

// guardDialer dials as gocql's default host dialer does (the same TCP
// dialer, TLS set up by gocql.WrapTLS) and guards the connection.
type guardDialer struct {
	dialer setupDeadlineDialer
	tls    *tls.Config // nil: plain
}

func (d guardDialer) DialHost(ctx context.Context, host *gocql.HostInfo) (*gocql.DialedHost, error) {
	if host.ConnectAddress() == nil || host.Port() == 0 {
		return nil, fmt.Errorf("host %v has no address or port", host)
	}
	conn, err := d.dialer.DialContext(ctx, "tcp", host.ConnectAddressAndPort())
	if err != nil {
		return nil, err
	}
	var cfg *tls.Config
	if d.tls != nil {
		cfg = d.tls.Clone()
	}
	dh, err := gocql.WrapTLS(ctx, conn, host.HostnameAndPort(), cfg)
	if err != nil {
		return nil, err
	}
	dh.Conn = &guardConn{Conn: dh.Conn, options: map[int16]bool{}}
	return dh, nil
}

// guardConn is a connection whose frame headers are read as they pass.
type guardConn struct {
	net.Conn
	mu      sync.Mutex
	options map[int16]bool // streams of OPTIONS requests awaiting their reply
	out, in frameScanner
	failed  bool
}

func (c *guardConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.out.scan(p, func(stream int16, opcode byte) bool {
		if opcode == opOptions {
			c.options[stream] = true
		}
		return true
	})
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *guardConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	failed := c.failed
	c.mu.Unlock()
	if failed {
		return 0, errUnexpectedReply
	}
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.in.scan(p[:n], func(stream int16, opcode byte) bool {
		if !c.options[stream] {
			return true
		}
		delete(c.options, stream)
		if opcode != opSupported && opcode != opError {
			c.failed = true
			return false
		}
		return true
	})
	if c.failed {
		_ = c.Conn.Close()
		return 0, errUnexpectedReply
	}
	return n, err
}

// frameScanner finds the frame headers in a byte stream given in pieces:
// 9 bytes from protocol v3 on (version, flags, stream int16, opcode,
// length int32), 8 before (a one-byte stream); the version is the first
// byte's low 7 bits (the high bit marks a response).
type frameScanner struct {
	head []byte // the header read so far
	skip int64  // body bytes left of the current frame
}

// scan calls header for each frame header completed in p, until it returns
// false.
func (s *frameScanner) scan(p []byte, header func(stream int16, opcode byte) bool) {
	for len(p) > 0 {
		if s.skip > 0 {
			n := min(int64(len(p)), s.skip)
			s.skip -= n
			p = p[n:]
			continue
		}
		size := 9
		if len(s.head) > 0 && s.head[0]&0x7f < 3 {
			size = 8
		} else if len(s.head) == 0 && p[0]&0x7f < 3 {
			size = 8
		}
		n := min(size-len(s.head), len(p))
		s.head = append(s.head, p[:n]...)
		p = p[n:]
		if len(s.head) < size {
			return
		}
		stream := int16(binary.BigEndian.Uint16(s.head[2:4]))
		if size == 8 {
			stream = int16(int8(s.head[2]))
		}
		opcode := s.head[size-5]
		s.skip = int64(binary.BigEndian.Uint32(s.head[size-4:]))
		s.head = s.head[:0]
		if !header(stream, opcode) {
			return
		}
	}
}
