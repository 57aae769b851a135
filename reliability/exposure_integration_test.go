//go:build integration

package reliability

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/partmon/partmon/tools/testkit"
)

// TestWrongPasswordFlood: while 32 clients send wrong passwords as fast as
// partmon answers (a new one each time: nothing to cache), Prometheus'
// scrapes with the right password, checked once before, keep their
// latency: bcrypt runs outside the lock of the outcome cache, and wrong
// passwords queue only behind each other (docs/operations.md "Exposure").
func TestWrongPasswordFlood(t *testing.T) {
	c := ownCluster(t)
	hash, err := bcrypt.GenerateFromPassword([]byte("scrape-pw"), bcrypt.DefaultCost)
	if err != nil {
		t.Fatal(err)
	}
	webConfig := filepath.Join(t.TempDir(), "web.yml")
	if err := os.WriteFile(webConfig, []byte("basic_auth_users:\n  prometheus: "+string(hash)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	listen := testkit.FreeAddr(t)
	// The binary without the race detector: bcrypt under it is 7 times slower.
	d := c.startPartmon(t, "partmon-password-flood", options{creds: c.readOnlyRole(t, "partmon_flood"), webConfig: webConfig, listen: listen, plain: true})
	d.user, d.pass = "prometheus", "scrape-pw"
	d.waitReady(60 * time.Second)
	scrape := func() time.Duration {
		start := time.Now()
		if _, code, err := d.get("/metrics"); err != nil || code != http.StatusOK {
			t.Errorf("scrape: %d %v", code, err)
		}
		return time.Since(start)
	}
	scrape() // the first check of the password: its bcrypt
	var quiet []time.Duration
	for range 20 {
		quiet = append(quiet, scrape())
	}

	stop := make(chan struct{})
	var wg sync.WaitGroup
	var sent, refused atomic.Int64
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				req, _ := http.NewRequest(http.MethodGet, d.base+"/metrics", nil)
				req.SetBasicAuth("prometheus", fmt.Sprintf("wrong-%d-%d", i, n))
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				sent.Add(1)
				if resp.StatusCode == http.StatusTooManyRequests {
					refused.Add(1)
				}
			}
		}()
	}
	time.Sleep(2 * time.Second) // the flood fills the queue
	var flood []time.Duration
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		flood = append(flood, scrape())
	}
	close(stop)
	wg.Wait()
	d.alive()
	q50, q99 := percentile(quiet, 50), percentile(quiet, 99)
	f50, f99 := percentile(flood, 50), percentile(flood, 99)
	t.Logf("scrape latency quiet p50 %s p99 %s; during %d wrong passwords (%d told 429) p50 %s p99 %s over %d scrapes",
		q50, q99, sent.Load(), refused.Load(), f50, f99, len(flood))
	// Waiting behind the flood's bcrypt checks (32 clients, ~70 ms each
	// on an idle core) is seconds a scrape; the CPU the flood takes from
	// the scrape on a loaded 2-core box is a fraction of one.
	if f50 > time.Second {
		t.Errorf("scrape p50 during the flood %s, over 1 s: the right password waits behind wrong ones", f50)
	}
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// TestSlowAndOversizedClients: a header past 64 KiB is refused with 431; 100
// clients sending a header a byte a second (slowloris) are cut off after
// the 10-s header timeout while scrapes keep answering; an idle keep-alive
// connection is closed after the 60-s idle timeout.
func TestSlowAndOversizedClients(t *testing.T) {
	c := ownCluster(t)
	d := c.startPartmon(t, "partmon-slow-clients", options{creds: c.readOnlyRole(t, "partmon_slow"), plain: true})
	d.waitReady(60 * time.Second)
	addr := strings.TrimPrefix(d.base, "http://")

	req, _ := http.NewRequest(http.MethodGet, d.base+"/metrics", nil)
	req.Header.Set("X-Pad", strings.Repeat("a", 128<<10))
	if resp, err := d.client.Do(req); err != nil {
		t.Errorf("128-KiB header: %v", err)
	} else {
		resp.Body.Close()
		if resp.StatusCode != http.StatusRequestHeaderFieldsTooLarge {
			t.Errorf("128-KiB header: %d, want 431", resp.StatusCode)
		}
	}

	idle := make(chan time.Duration, 1)
	go func() { idle <- idleLifetime(t, addr) }()

	const slow = 100
	closed := make(chan time.Duration, slow)
	for range slow {
		go func() { closed <- slowloris(addr, 30*time.Second) }()
	}
	time.Sleep(3 * time.Second)
	var during []time.Duration
	for range 10 {
		start := time.Now()
		d.mustGet("/metrics")
		during = append(during, time.Since(start))
	}
	var cut []time.Duration
	for range slow {
		cut = append(cut, <-closed)
	}
	t.Logf("%d slowloris connections cut after p50 %s, max %s; scrapes meanwhile p50 %s, max %s",
		slow, percentile(cut, 50), percentile(cut, 100), percentile(during, 50), percentile(during, 100))
	if m := percentile(cut, 100); m > 15*time.Second {
		t.Errorf("a slowloris connection stayed %s, want cut within 15 s", m)
	}
	if m := percentile(during, 100); m > 2*time.Second {
		t.Errorf("a scrape during the slowloris took %s", m)
	}
	lived := <-idle
	t.Logf("an idle keep-alive connection was closed after %s", lived)
	if lived > 70*time.Second {
		t.Errorf("an idle keep-alive connection stayed open %s, want closed within 70 s", lived)
	}
	d.alive()
}

// slowloris opens a connection and sends a request header a byte a second;
// it returns how long the server kept the connection (bound if it never
// closed it).
func slowloris(addr string, bound time.Duration) time.Duration {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return 0
	}
	defer conn.Close()
	start := time.Now()
	if _, err := fmt.Fprintf(conn, "GET /metrics HTTP/1.1\r\nHost: %s\r\nX-Slow: ", addr); err != nil {
		return time.Since(start)
	}
	for time.Since(start) < bound {
		time.Sleep(time.Second)
		if _, err := conn.Write([]byte("a")); err != nil {
			return time.Since(start)
		}
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
		if _, err := conn.Read(make([]byte, 1)); err != nil && !isTimeout(err) {
			return time.Since(start)
		}
	}
	return bound
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// idleLifetime sends one request on a keep-alive connection, then waits:
// how long the server keeps it open afterwards (90 s if it never closes it).
func idleLifetime(t *testing.T, addr string) time.Duration {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Error(err)
		return 0
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /healthz HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Error(err)
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	start := time.Now()
	_ = conn.SetReadDeadline(start.Add(90 * time.Second))
	_, _ = r.ReadByte() // EOF when the server closes; the deadline otherwise
	return time.Since(start)
}

// TestKeyWithNewlineThroughFailingProfileload: with keys hashed, nodetool
// profileload prints a key holding a newline, which breaks the output's
// shape; the sampler's run fails, and its error, in the status page, the
// API and the log, names the line, never the key (the failed run's keys
// were never learned, so no scrub would have caught them).
func TestKeyWithNewlineThroughFailingProfileload(t *testing.T) {
	c := ownCluster(t)
	c.seedTraffic(t) // a user table, so the sampler runs
	dir := t.TempDir()
	secret := filepath.Join(dir, "keys.secret")
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	if err := os.WriteFile(secret, []byte(hex.EncodeToString(b)), 0o600); err != nil {
		t.Fatal(err)
	}
	const keyHead, keyTail = "pm-secret-ZX81", "tail-Q7"
	fake := filepath.Join(dir, "nodetool")
	script := "#!/bin/sh\ncase \"$*\" in\n*profileload*)\n" +
		"printf 'Frequency of reads by partition:\\n   Table     Partition Count +/-\\n'\n" +
		"printf '   partmon_reliability.kv %s\\n%s 5 0\\n' '" + keyHead + "' '" + keyTail + "'\n" +
		"printf 'Frequency of writes by partition:\\nNothing recorded during sampling period...\\n'\n;;\n" +
		"*) echo 'error: not this fake nodetool' >&2; exit 1;;\nesac\n"
	if err := os.WriteFile(fake, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	d := c.startPartmon(t, "partmon-key-newline", options{creds: c.readOnlyRole(t, "partmon_keynl"), edit: func(cfg map[string]any) {
		cfg["keys"] = map[string]any{"mode": "hashed", "secret_file": secret}
		coll := cfg["collector"].(map[string]any)
		coll["nodetool_sampler"] = map[string]any{"command": []string{fake, "{address}"}, "duration": "100ms"}
	}})
	d.waitReady(60 * time.Second)
	var report string
	d.waitFor(60*time.Second, "the sampler's failed run in the report", func() (bool, string) {
		body, _, err := d.get("/api/v1/report")
		report = string(body)
		return err == nil && strings.Contains(report, "line 3"), fmt.Sprint(err)
	})
	outputs := map[string]string{"/api/v1/report": report, "log": d.proc.Output()}
	for _, path := range []string{"/", "/api/v1/findings", "/metrics"} {
		outputs[path] = string(d.mustGet(path))
	}
	for name, out := range outputs {
		for _, piece := range []string{keyHead, keyTail} {
			if strings.Contains(out, piece) {
				i := strings.Index(out, piece)
				t.Errorf("%s names the key (%q): ...%s...", name, piece, out[max(0, i-150):min(len(out), i+50)])
			}
		}
	}
	d.alive()
}
