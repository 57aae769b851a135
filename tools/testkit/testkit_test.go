package testkit

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRepoRootHoldsPartmonsGoMod(t *testing.T) {
	data, err := os.ReadFile(Path(t, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(data), "module github.com/partmon/partmon\n") {
		t.Errorf("%s does not declare module github.com/partmon/partmon:\n%.200s", Path(t, "go.mod"), data)
	}
	if got, want := Path(t, "tools", "testkit"), mustGetwd(t); got != want {
		t.Errorf("Path(tools/testkit) = %s, the package directory is %s", got, want)
	}
}

func TestRepoRootOutsideTheRepository(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if root, err := RepoRoot(); err == nil {
		t.Errorf("RepoRoot in %s = %s, want an error", dir, root)
	}
}

func TestFreeAddrIsLoopbackAndRefused(t *testing.T) {
	addr := FreeAddr(t)
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	if host != "127.0.0.1" {
		t.Errorf("FreeAddr = %s, want a 127.0.0.1 address", addr)
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 {
		t.Errorf("FreeAddr = %s: port %q", addr, port)
	}
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("something listens on %s", addr)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dialing %s: %v, want connection refused", addr, err)
	}
	// The port is usable: a listener can take it.
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listening on %s: %v", addr, err)
	}
	l.Close()
	if p := FreePort(t); p <= 0 || p > 65535 {
		t.Errorf("FreePort = %d", p)
	}
}

func mustGetwd(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	wd, err = filepath.EvalSymlinks(wd)
	if err != nil {
		t.Fatal(err)
	}
	return wd
}
