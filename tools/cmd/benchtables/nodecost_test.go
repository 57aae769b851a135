package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"
)

// The lines are a real Cassandra 5.0.8 JVM's (Java 17, G1; `make bench`'s
// node 1, GC log switched on with `jcmd PID VM.log what=gc=info
// decorators=uptimemillis`), except the concurrent-phase line, which has
// the form G1 logs at gc=info.
func TestGCPausesSince(t *testing.T) {
	tests := []struct {
		name  string
		lines string
		want  float64
	}{
		{"full GC by jcmd", "[2256918ms] GC(21) Pause Full (Diagnostic Command) 272M->67M(512M) 1330.394ms\n", 1330.394},
		{"two young pauses", "[285911ms] GC(21) Pause Young (Normal) (G1 Evacuation Pause) 164M->103M(1024M) 226.032ms\n" +
			"[303182ms] GC(22) Pause Young (Normal) (G1 Evacuation Pause) 183M->108M(1024M) 131.796ms\n", 357.828},
		{"concurrent phases are not pauses", "[1300ms] GC(5) Concurrent Mark Cycle 45.123ms\n", 0},
		{"nothing", "", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "gc.log")
			if err := os.WriteFile(path, []byte("[5ms] GC(0) Pause Young (Normal) (G1 Evacuation Pause) 20M->4M(1024M) 99.000ms\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			g := &gcLog{path: path}
			off := g.offset()
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(tc.lines); err != nil {
				t.Fatal(err)
			}
			f.Close()
			got, err := g.pausesSince(off)
			if err != nil {
				t.Fatal(err)
			}
			if diff := got - tc.want; diff > 1e-9 || diff < -1e-9 {
				t.Errorf("pauses since the mark = %v ms, want %v (the line before the mark must not count)", got, tc.want)
			}
		})
	}
}

// cpuSeconds reads /proc/PID/stat; getrusage is an independent reading of
// the same counters for this process.
func TestCPUSecondsAgreesWithGetrusage(t *testing.T) {
	before, err := cpuSeconds(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	ru0 := selfCPU()
	for end := time.Now().Add(200 * time.Millisecond); time.Now().Before(end); {
	}
	after, err := cpuSeconds(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	ru := selfCPU() - ru0
	if got := after - before; got < ru-0.05 || got > ru+0.05 {
		t.Errorf("/proc/self/stat says %.3f s of CPU, getrusage %.3f s", got, ru)
	}
	if _, err := cpuSeconds(1 << 30); err == nil {
		t.Error("no error for a process that does not exist")
	}
}

func TestSignalsIn(t *testing.T) {
	read := func(path string) []byte {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	partmon := func(s partitionSignal) *regexp.Regexp { return s.partmon }
	jmx := func(s partitionSignal) *regexp.Regexp { return s.jmx }
	tests := []struct {
		name string
		body []byte
		pick func(partitionSignal) *regexp.Regexp
		want []string
	}{
		// The exporter's golden exposition of its hand-built three-node report.
		{"partmon", read("../../../exporter/testdata/cluster.prom"), partmon, []string{
			"largest partition per table and node", "partition keys (which key)", "tombstones per read",
			"ownership per node and keyspace", "traffic skew per table and node", "hot keys"}},
		// A real scrape of jmx_exporter 0.20.0 with upstream's examples/cassandra.yml, one 5.0.8 node, 53 tables.
		{"jmx_exporter", read("testdata/jmx_exporter_0.20.0_cassandra_5.0.8.prom"), jmx, nil},
		{"a jmx scrape with partition sizes", []byte("cassandra_table_maxpartitionsize{keyspace=\"ks\",scope=\"t\"} 1\n"), jmx,
			[]string{"largest partition per table and node"}},
		{"comments do not count", []byte("# HELP partmon_node_ownership_ratio x\n"), partmon, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := signalsIn(tc.body, tc.pick)
			for _, s := range partitionSignals {
				want := false
				for _, w := range tc.want {
					want = want || w == s.Name
				}
				if got[s.Name] != want {
					t.Errorf("%s: %v, want %v", s.Name, got[s.Name], want)
				}
			}
		})
	}
}
