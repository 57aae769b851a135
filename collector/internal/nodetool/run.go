package nodetool

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// runBounded runs name args in its own process group, keeps its first
// maxOutput bytes of stdout and fails past them. It serves profileload,
// whose output does not grow with the table count (Capacity−1 rows per
// sampler).
func runBounded(ctx context.Context, name string, args []string) (string, error) {
	var out bytes.Buffer
	runErr, parseErr := runParsed(ctx, name, args, maxOutput, func(r io.Reader) error {
		_, err := io.Copy(&out, r)
		return err
	})
	if err := errors.Join(runErr, parseErr); err != nil {
		return "", err
	}
	return out.String(), nil
}

// errOutputLimit is what the reader of a run's stdout returns past its limit.
var errOutputLimit = errors.New("output limit reached")

// runParsed runs name args in its own process group and hands its stdout to
// parse as it comes, so that what partmon holds is what parse keeps, not the
// output. Past limit bytes the reader fails, the group is killed and runErr
// says so; when ctx ends the whole group (a wrapper script and its JVM) is
// killed. runErr is the run's failure (which, when nodetool fails, is more
// telling than what parse made of its output); parseErr is parse's, only
// when the run succeeded.
func runParsed(ctx context.Context, name string, args []string, limit int64, parse func(io.Reader) error) (runErr, parseErr error) {
	runCtx, kill := context.WithCancel(ctx)
	defer kill()
	cmd := exec.CommandContext(runCtx, name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = killWait
	stderr := &cappedBuffer{limit: 64 << 10}
	cmd.Stderr = stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return fmt.Errorf("%s: %w", name, err), nil
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err), nil
	}
	head := &cappedBuffer{limit: 4 << 10} // the start of stdout, for nodetool's own errors
	out := &limitedReader{r: io.TeeReader(pipe, head), left: limit}
	parseErr = parse(out)
	if _, err := io.Copy(io.Discard, out); err != nil && parseErr == nil {
		parseErr = err // the rest is read so that nodetool can exit, up to the limit
	}
	if out.overflow {
		kill()
	}
	waitErr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%s killed: %w", name, ctx.Err()), nil
	case out.overflow:
		return fmt.Errorf("%s printed more than %d bytes", name, limit), nil
	case waitErr != nil:
		return busyOr(fmt.Errorf("%s: %w: %s", name, waitErr, excerpt(stderr.String(), head.String(), int(limit-out.left))), stderr.String(), head.String()), nil
	}
	return nil, parseErr
}

// limitedReader reads r until left bytes have been read, then fails with
// errOutputLimit.
type limitedReader struct {
	r        io.Reader
	left     int64
	overflow bool
}

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		l.overflow = true
		return 0, errOutputLimit
	}
	if int64(len(p)) > l.left {
		p = p[:l.left+1] // one byte more tells a full stop from an overflow
	}
	n, err := l.r.Read(p)
	if int64(n) > l.left {
		l.overflow = true
		return int(l.left), errOutputLimit
	}
	l.left -= int64(n)
	return n, err
}

// excerpt is what a failed run's message quotes: the first line of stderr,
// where nodetool writes its errors (connection, authentication, unknown
// table), or else the first line of stdout that is nodetool's own argument
// error ("nodetool: ..."), and nothing else of stdout, which carries
// partition keys (profileload): a failed run's keys were never learned, so
// no scrub would catch them. Of the rest of stdout only its size is told.
func excerpt(stderr, stdoutHead string, stdoutBytes int) string {
	line := firstLine(stderr)
	if line == "" {
		for _, l := range strings.Split(stdoutHead, "\n") {
			if strings.HasPrefix(l, "nodetool: ") {
				line = firstLine(l)
				break
			}
		}
	}
	out := fmt.Sprintf("%d bytes on stdout, not quoted", stdoutBytes)
	if line == "" {
		return "no error line, " + out
	}
	return strconv.Quote(truncate(line, 240)) + " (" + out + ")"
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\r\n"); i >= 0 {
		s = s[:i]
	}
	return s
}

// cappedBuffer keeps the first limit bytes and drops the rest, so a runaway
// child cannot exhaust memory; Write never fails, so the child never blocks.
type cappedBuffer struct {
	buf   bytes.Buffer
	limit int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	room := max(b.limit-b.buf.Len(), 0)
	b.buf.Write(p[:min(room, len(p))])
	return len(p), nil
}

func (b *cappedBuffer) String() string { return b.buf.String() }
