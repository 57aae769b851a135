package cql

import (
	"bytes"
	"errors"
	"io"
	"net"
	"testing"
	"time"
)

// frame is a native protocol v4 frame header (and body) as the driver and
// a node write them.
func frame(response bool, stream int16, opcode byte, body []byte) []byte {
	v := byte(0x04)
	if response {
		v |= 0x80
	}
	n := len(body)
	return append([]byte{v, 0, byte(uint16(stream) >> 8), byte(stream), opcode, byte(n >> 24), byte(n >> 16), byte(n >> 8), byte(n)}, body...)
}

// A reply to OPTIONS that is neither SUPPORTED nor ERROR (gocql v1.7.0's
// heartbeat panics on it, on a goroutine no recover reaches) fails the read
// and closes the connection before the driver reads it; SUPPORTED, ERROR
// and any reply to another request pass untouched, however the bytes are
// split.
func TestGuardConnFailsOnUnexpectedOptionsReply(t *testing.T) {
	const ready = 0x02
	cases := []struct {
		name    string
		request []byte
		reply   []byte
		chunk   int // the node writes the reply in pieces of this size
		fails   bool
	}{
		{"SUPPORTED", frame(false, 5, opOptions, nil), frame(true, 5, opSupported, []byte{0, 0}), 0, false},
		{"ERROR", frame(false, 5, opOptions, nil), frame(true, 5, opError, []byte("xxxxxx")), 0, false},
		{"READY to OPTIONS", frame(false, 5, opOptions, nil), frame(true, 5, ready, nil), 0, true},
		{"RESULT to OPTIONS, a byte at a time", frame(false, 7, opOptions, nil), append(frame(true, 3, 0x08, []byte("row")), frame(true, 7, 0x08, []byte("r"))...), 1, true},
		{"READY to STARTUP", frame(false, 5, 0x01, []byte("{}")), frame(true, 5, ready, nil), 0, false},
		{"an event", frame(false, 5, opOptions, nil), append(frame(true, -1, 0x0c, []byte("ev")), frame(true, 5, opSupported, nil)...), 3, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client, node := net.Pipe()
			defer node.Close()
			g := &guardConn{Conn: client, options: map[int16]bool{}}
			go func() {
				_, _ = io.ReadFull(node, make([]byte, len(c.request)))
				for p := c.reply; len(p) > 0; {
					n := len(p)
					if c.chunk > 0 {
						n = min(n, c.chunk)
					}
					if _, err := node.Write(p[:n]); err != nil {
						return
					}
					p = p[n:]
				}
			}()
			if _, err := g.Write(c.request); err != nil {
				t.Fatal(err)
			}
			_ = client.SetReadDeadline(time.Now().Add(5 * time.Second))
			var got bytes.Buffer
			var err error
			for got.Len() < len(c.reply) && err == nil {
				buf := make([]byte, 64)
				var n int
				n, err = g.Read(buf)
				got.Write(buf[:n])
			}
			switch {
			case c.fails && !errors.Is(err, errUnexpectedReply):
				t.Fatalf("read %q, %v; want the connection failed", got.Bytes(), err)
			case c.fails && got.Len() >= len(c.reply):
				t.Fatalf("the whole reply reached the driver: %q", got.Bytes())
			case !c.fails && (err != nil || !bytes.Equal(got.Bytes(), c.reply)):
				t.Fatalf("read %q, %v; want the reply untouched", got.Bytes(), err)
			}
		})
	}
}
