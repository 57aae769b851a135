package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of utime and stime in /proc/PID/stat: 100
// on every Linux architecture Go runs on (the kernel fixes it for the ABI).
const clockTicks = 100

// cpuSeconds is utime + stime of pid (every thread, not its children) from
// /proc/PID/stat.
func cpuSeconds(pid int) (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("reading the CPU time of process %d: %w", pid, err)
	}
	// The command (field 2) may hold spaces: count from the last ')'.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields after the command", pid, len(fields))
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64) // field 14
	stime, err2 := strconv.ParseInt(fields[12], 10, 64) // field 15
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: utime %q stime %q", pid, fields[11], fields[12])
	}
	return float64(utime+stime) / clockTicks, nil
}

// selfCPU is this process's user + system time, all threads.
func selfCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return tv(ru.Utime) + tv(ru.Stime)
}

func tv(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }

// gcLog is the Cassandra JVM's garbage-collection log, switched on at run
// time with `jcmd PID VM.log` (the local cluster starts its JVMs without GC
// logging, and -XX:+PerfDisableSharedMem keeps jstat out). Each pause is a
// line "... Pause Young (Normal) (G1 Evacuation Pause) 101M->50M(512M) 3.456ms".
type gcLog struct {
	path string
}

var gcPause = regexp.MustCompile(`Pause .* ([0-9.]+)ms$`)

// enableGCLog asks the JVM pid to log GC pauses to a file in dir.
func enableGCLog(ctx context.Context, pid int, dir string) (*gcLog, error) {
	path := filepath.Join(dir, fmt.Sprintf("gc-%d.log", pid))
	out, err := exec.CommandContext(ctx, "jcmd", strconv.Itoa(pid), "VM.log",
		"output=file="+path, "what=gc=info", "decorators=uptimemillis").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "executed successfully") {
		return nil, fmt.Errorf("jcmd %d VM.log (GC pause log): %v: %s", pid, err, strings.TrimSpace(string(out)))
	}
	return &gcLog{path: path}, nil
}

// offset is the log's size now; pausesSince sums the pauses logged after it.
func (g *gcLog) offset() int64 {
	if g == nil {
		return 0
	}
	st, err := os.Stat(g.path)
	if err != nil {
		return 0
	}
	return st.Size()
}

func (g *gcLog) pausesSince(off int64) (ms float64, err error) {
	if g == nil {
		return 0, nil
	}
	f, err := os.Open(g.path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if _, err := f.Seek(off, 0); err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if m := gcPause.FindStringSubmatch(sc.Text()); m != nil {
			v, _ := strconv.ParseFloat(m[1], 64)
			ms += v
		}
	}
	return ms, sc.Err()
}

// costMeter measures what an action costs the Cassandra process: its CPU
// seconds (utime + stime) and GC pause time during the action, less what
// the node spends idle over the same wall time.
type costMeter struct {
	pid int
	gc  *gcLog
	// idle CPU seconds and GC pause milliseconds per wall second, measured
	// over quiet windows (idleWindows).
	idleCPU, idleGC []float64
}

// nodeCost is one measured action.
type nodeCost struct {
	Wall    float64 `json:"wall_s"`
	CPU     float64 `json:"node_cpu_s"`       // raw, idle not subtracted
	GC      float64 `json:"node_gc_pause_ms"` // raw
	Process float64 `json:"process_cpu_s"`    // the client's own process (partmon, jmx_exporter, nodetool)
}

// measure runs action and returns its wall time and the node's CPU and GC
// in that time. action returns the CPU its own process spent (0 if none).
func (c *costMeter) measure(action func() (float64, error)) (nodeCost, error) {
	cpu0, err := cpuSeconds(c.pid)
	if err != nil {
		return nodeCost{}, err
	}
	off := c.gc.offset()
	start := time.Now()
	proc, err := action()
	wall := time.Since(start).Seconds()
	cpu1, cerr := cpuSeconds(c.pid)
	if err == nil {
		err = cerr
	}
	gc, gerr := c.gc.pausesSince(off)
	if err == nil {
		err = gerr
	}
	return nodeCost{Wall: wall, CPU: cpu1 - cpu0, GC: gc, Process: proc}, err
}

// idleWindow records the node's CPU and GC per second over d of nothing.
func (c *costMeter) idleWindow(ctx context.Context, d time.Duration) error {
	nc, err := c.measure(func() (float64, error) {
		select {
		case <-time.After(d):
			return 0, nil
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	})
	if err != nil {
		return err
	}
	c.idleCPU = append(c.idleCPU, nc.CPU/nc.Wall)
	c.idleGC = append(c.idleGC, nc.GC/nc.Wall)
	return nil
}

// cassandraPID is the JVM of node n of the cluster (`cluster state`).
func (c *benchCluster) cassandraPID(ctx context.Context, n int) (int, error) {
	out, err := exec.CommandContext(ctx, c.script, "state", "--dir", c.dir, strconv.Itoa(n)).Output()
	if err != nil {
		return 0, fmt.Errorf("cluster state %d: %w", n, err)
	}
	f := strings.Fields(string(out)) // nodeN ADDRESS running PID
	if len(f) < 4 || f[2] != "running" {
		return 0, fmt.Errorf("node %d is not running: %q", n, strings.TrimSpace(string(out)))
	}
	return strconv.Atoi(f[3])
}
