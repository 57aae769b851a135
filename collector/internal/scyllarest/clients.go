package scyllarest

import (
	"net"
	"net/http"
	"strconv"
	"sync"
)

// Clients hands out one Client per node, all at the same scheme and port
// and sharing one http.Client.
type Clients struct {
	scheme string
	port   int
	hc     *http.Client

	mu      sync.Mutex
	clients map[string]*Client
}

// NewClients returns the clients of nodes whose REST API is at
// scheme://<node>:port.
func NewClients(scheme string, port int) *Clients {
	return &Clients{scheme: scheme, port: port, hc: &http.Client{}, clients: map[string]*Client{}}
}

// For returns the client of the node at addr (an IP or a name, no port).
func (c *Clients) For(addr string) *Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.clients[addr]
	if !ok {
		cl = New(c.scheme+"://"+net.JoinHostPort(addr, strconv.Itoa(c.port)), c.hc)
		c.clients[addr] = cl
	}
	return cl
}
