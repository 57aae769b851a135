// Package testkit holds the helpers every test package of partmon needs,
// written once: the repository root, a free loopback address and
// the partmon binary built as `make build` builds it. Standard library only,
// so that any package's tests may import it.
package testkit

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// RepoRoot walks up from the working directory (a package's directory while
// its tests run) to the directory holding go.mod.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the working directory: %w", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory: run the tests inside the repository")
		}
		dir = parent
	}
}

// Root is RepoRoot for tests: it fails the test when there is no root.
func Root(t testing.TB) string {
	t.Helper()
	root, err := RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// Path is a path inside the repository, for tests: Path(t, "deploy", "partmon.yml").
func Path(t testing.TB, elem ...string) string {
	t.Helper()
	return filepath.Join(append([]string{Root(t)}, elem...)...)
}

// PickFreeAddr returns a loopback address ("127.0.0.1:PORT") whose port was
// free a moment ago. Nothing listens on it when it returns, so it also serves
// as the address of a node that is down: connections are refused at once.
func PickFreeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free loopback port: %w", err)
	}
	defer l.Close()
	return l.Addr().String(), nil
}

// FreeAddr is PickFreeAddr for tests: it fails the test when no port is free.
func FreeAddr(t testing.TB) string {
	t.Helper()
	addr, err := PickFreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	return addr
}

// FreePort is the port of FreeAddr, for APIs that take a port number.
func FreePort(t testing.TB) int {
	t.Helper()
	addr := FreeAddr(t)
	tcp, err := net.ResolveTCPAddr("tcp", addr)
	if err != nil {
		t.Fatalf("parsing %s: %v", addr, err)
	}
	return tcp.Port
}

// BuildPartmon builds ./cmd/partmon into dir/name and returns its path:
// statically (CGO_ENABLED=0) as `make build` does, or with the race detector
// (which needs cgo) when race is set, so that a data race under real faults
// fails the test too.
func BuildPartmon(ctx context.Context, dir, name string, race bool) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name)
	args := []string{"build", "-o", bin}
	env := append(os.Environ(), "CGO_ENABLED=0")
	if race {
		args = append(args, "-race")
		env = append(os.Environ(), "CGO_ENABLED=1")
	}
	cmd := exec.CommandContext(ctx, "go", append(args, "./cmd/partmon")...)
	cmd.Dir = root
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building partmon (go %v): %v\n%s", cmd.Args[1:], err, out)
	}
	return bin, nil
}
