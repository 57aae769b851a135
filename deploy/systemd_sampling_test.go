//go:build linux

package deploy

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// unitDirectives reads a unit file's Key=Value lines, comments left out.
func unitDirectives(t *testing.T, rel string) map[string][]string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, rel))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(line, "="); ok && !strings.HasPrefix(line, "#") {
			out[k] = append(out[k], v)
		}
	}
	return out
}

const samplingDropIn = "deploy/systemd/partmon.service.d/sampling.conf"

// The unit as shipped stops any JVM and leaves too little memory for two;
// the drop-in lifts exactly that and nothing else of the hardening.
func TestSystemdSamplingDropIn(t *testing.T) {
	unit := unitDirectives(t, "deploy/systemd/partmon.service")
	drop := unitDirectives(t, samplingDropIn)
	if got := unit["MemoryDenyWriteExecute"]; len(got) != 1 || got[0] != "yes" {
		t.Errorf("partmon.service: MemoryDenyWriteExecute %v, the drop-in is written against yes", got)
	}
	if got := drop["MemoryDenyWriteExecute"]; len(got) != 1 || got[0] != "no" {
		t.Errorf("%s: MemoryDenyWriteExecute %v, want no (a JVM cannot start under yes)", samplingDropIn, got)
	}
	// partmon and two nodetool JVMs (-Xmx128m each, up to ~250 MiB resident).
	const need = 1 << 30
	if got := drop["MemoryMax"]; len(got) != 1 || parseBytes(got[0]) < need {
		t.Errorf("%s: MemoryMax %v, want at least 1G", samplingDropIn, got)
	}
	for k := range drop {
		if k != "MemoryDenyWriteExecute" && k != "MemoryMax" && k != "LoadCredential" {
			t.Errorf("%s sets %s: the drop-in lifts only what a JVM needs", samplingDropIn, k)
		}
	}
}

// parseBytes reads a systemd size (512M, 1G, 1073741824); -1 when it cannot.
func parseBytes(s string) int64 {
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return -1
	}
	return n * mult
}

// systemd-analyze verify reads the unit with the drop-in: no unknown key, no
// bad value. The unit's ExecStart is pointed at a binary that exists here
// (verify checks it); nothing else of it changes.
func TestSystemdSamplingDropInVerifies(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Log("systemd-analyze is not installed: only the drop-in's directives were checked (TestSystemdSamplingDropIn)")
		return
	}
	dir := t.TempDir()
	unit, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "systemd", "partmon.service"))
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	unit = bytes.Replace(unit, []byte("ExecStart=/usr/local/bin/partmon "), []byte("ExecStart="+self+" "), 1)
	drop, err := os.ReadFile(filepath.Join(repoRoot, samplingDropIn))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "partmon.service.d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "partmon.service"), unit, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "partmon.service.d", "sampling.conf"), drop, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(analyze, "verify", filepath.Join(dir, "partmon.service"))
	cmd.Env = append(os.Environ(), "SYSTEMD_UNIT_PATH="+dir+":")
	out, err := cmd.CombinedOutput()
	if err != nil || bytes.Contains(out, []byte("sampling.conf")) {
		t.Errorf("systemd-analyze verify with the drop-in: %v\n%s", err, out)
	}
}

// A JVM under the kernel's memory-deny-write-execute (prctl PR_SET_MDWE,
// what systemd 253+ sets for MemoryDenyWriteExecute=yes, before that a
// seccomp filter with the same effect) does not start; without it, it does.
func TestJVMNeedsWriteExecute(t *testing.T) {
	if os.Getenv("PARTMON_MDWE_EXEC") != "" {
		mdweExec() // the helper process: never returns
	}
	java, err := exec.LookPath("java")
	if err != nil || runtime.GOOS != "linux" {
		t.Log("no java on this Linux machine: not run")
		return
	}
	if out, err := exec.Command(java, "-version").CombinedOutput(); err != nil {
		t.Fatalf("java -version without the restriction: %v\n%s", err, out)
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestJVMNeedsWriteExecute$")
	cmd.Env = append(os.Environ(), "PARTMON_MDWE_EXEC="+java)
	out, err := cmd.CombinedOutput()
	switch {
	case bytes.Contains(out, []byte("prctl: ")):
		t.Logf("this kernel has no PR_SET_MDWE (Linux 6.3+): not run: %s", out)
	case err == nil:
		t.Errorf("java started under memory-deny-write-execute:\n%s", out)
	case !bytes.Contains(out, []byte("executable")):
		t.Errorf("java failed for another reason than the restriction: %v\n%s", err, out)
	}
}

// mdweExec sets PR_SET_MDWE (PR_MDWE_REFUSE_EXEC_GAIN) on this process and
// execs java -version in its place.
func mdweExec() {
	const prSetMDWE, refuseExecGain = 65, 1
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, prSetMDWE, refuseExecGain, 0, 0, 0, 0); e != 0 {
		_, _ = os.Stderr.WriteString("prctl: " + e.Error() + "\n") // the exit code says it too
		os.Exit(3)
	}
	java := os.Getenv("PARTMON_MDWE_EXEC")
	err := syscall.Exec(java, []string{java, "-version"}, os.Environ())
	_, _ = os.Stderr.WriteString("exec: " + err.Error() + "\n") // the exit code says it too
	os.Exit(4)
}

// The nodetool image variant: partmon on a Cassandra image (a JRE and
// nodetool), not the node's own entrypoint, as a user that is not root.
func TestDockerfileNodetool(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "deploy", "Dockerfile.nodetool"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	for _, want := range []string{"ARG CASSANDRA_IMAGE=cassandra:", "FROM ${CASSANDRA_IMAGE}", "CGO_ENABLED=0", "./cmd/partmon",
		"USER cassandra", `ENTRYPOINT ["/usr/local/bin/partmon"]`, "EXPOSE " + partmonPort, "/opt/cassandra/bin/nodetool"} {
		if !strings.Contains(text, want) {
			t.Errorf("Dockerfile.nodetool lacks %q", want)
		}
	}
}
