// Package promtest runs the real Prometheus and Alertmanager binaries (and any
// other helper process) for integration tests: on loopback ports picked at
// runtime, bounded in time, killed when the test ends, with their output kept
// for the failure report. Used by the dashboards tests and the end-to-end test.
package promtest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// LookPath finds the first of names on PATH, failing the test with hint if none is.
func LookPath(t testing.TB, hint string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	t.Fatalf("none of %v is on PATH (%s)", names, hint)
	return ""
}

// Options say where a process runs and where its output goes on failure.
type Options struct {
	// Dir is the working directory; empty means the test's.
	Dir string
	// Env is added to the test's environment.
	Env []string
	// LogDir, if set, receives NAME.log when the test fails; otherwise the
	// output is written to the test log.
	LogDir string
	// KeepLogs saves the output to LogDir even when the test passes.
	KeepLogs bool
}

// Process is a started command whose stdout and stderr are kept.
type Process struct {
	Name string
	Cmd  *exec.Cmd
	out  syncBuffer
	done chan struct{}
	err  error
}

// Start runs bin args in its own process group. When the test ends the whole
// group is killed and waited for, and on failure its output is saved.
func Start(t testing.TB, name string, opts Options, bin string, args ...string) *Process {
	t.Helper()
	p := &Process{Name: name, Cmd: exec.Command(bin, args...), done: make(chan struct{})}
	p.Cmd.Dir = opts.Dir
	if len(opts.Env) > 0 {
		p.Cmd.Env = append(os.Environ(), opts.Env...)
	}
	p.Cmd.Stdout, p.Cmd.Stderr = &p.out, &p.out
	p.Cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.Cmd.Start(); err != nil {
		t.Fatalf("starting %s (%s): %v", name, bin, err)
	}
	go func() {
		p.err = p.Cmd.Wait()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.Stop()
		if t.Failed() || (opts.KeepLogs && opts.LogDir != "") {
			saveLogs(t, opts.LogDir, name, p.Output())
		}
	})
	return p
}

// Stop kills the process group (only this process and its children) and
// waits for the process, at most 10 s. Safe to call twice.
func (p *Process) Stop() {
	if p.Cmd.Process == nil {
		return
	}
	select {
	case <-p.done:
		return
	default:
	}
	_ = syscall.Kill(-p.Cmd.Process.Pid, syscall.SIGKILL)
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
	}
}

// Exited reports whether the process has ended, and with what error.
func (p *Process) Exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// Wait waits for the process to end by itself, at most timeout.
func (p *Process) Wait(timeout time.Duration) error {
	select {
	case <-p.done:
		return p.err
	case <-time.After(timeout):
		return fmt.Errorf("%s still running after %s", p.Name, timeout)
	}
}

// Output is what the process wrote so far.
func (p *Process) Output() string { return p.out.String() }

func saveLogs(t testing.TB, dir, name, output string) {
	if dir == "" {
		t.Logf("%s output:\n%s", name, output)
		return
	}
	path := filepath.Join(dir, name+".log")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Logf("saving %s output: %v\n%s", name, err, output)
		return
	}
	if err := os.WriteFile(path, []byte(output), 0o644); err != nil {
		t.Logf("saving %s output: %v\n%s", name, err, output)
		return
	}
	t.Logf("%s output saved to %s", name, path)
}

// syncBuffer is a bytes.Buffer safe for the process's two writers and the test.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitFor polls ok every 200 ms until it holds, failing the test after timeout.
func WaitFor(t testing.TB, timeout time.Duration, what string, ok func() bool) {
	t.Helper()
	if !Eventually(timeout, ok) {
		t.Fatalf("timed out after %s waiting for %s", timeout, what)
	}
}

// Eventually polls ok every 200 ms until it holds (true) or timeout passes (false).
func Eventually(timeout time.Duration, ok func() bool) bool {
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(200 * time.Millisecond)
	}
	return true
}
