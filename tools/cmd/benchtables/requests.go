package main

import (
	"context"
	"fmt"
	"net"
	"time"
)

// counterAddr is the source address of the request count's own sessions,
// so that its requests are told apart from the measured partmon's (which
// connects from the loopback's default 127.0.0.1).
const counterAddr = "127.0.0.99"

// cqlRequests sums, over the cluster's nodes, the CQL requests Cassandra
// counted for every client connection except the counter's own
// (system_views.clients.request_count, 4.0+): the statements a partmon
// process really sent, counted by the nodes, whatever its code.
func cqlRequests(ctx context.Context, c *benchCluster) (int64, error) {
	var total int64
	for _, h := range c.hosts {
		n, err := nodeRequests(ctx, h)
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

func nodeRequests(ctx context.Context, host string) (int64, error) {
	cc := pinnedCluster(host)
	cc.Dialer = &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(counterAddr)}, Timeout: 20 * time.Second}
	s, err := cc.CreateSession()
	if err != nil {
		return 0, fmt.Errorf("connecting to %s: %w", host, err)
	}
	defer s.Close()
	iter := s.Query("SELECT address, request_count FROM system_views.clients").WithContext(ctx).Iter()
	var (
		addr  net.IP
		count int64
		total int64
	)
	for iter.Scan(&addr, &count) {
		if !addr.Equal(net.ParseIP(counterAddr)) {
			total += count
		}
	}
	if err := iter.Close(); err != nil {
		return 0, fmt.Errorf("reading system_views.clients on %s: %w", host, err)
	}
	return total, nil
}
