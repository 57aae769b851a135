package nodetool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/partmon/partmon/collector/internal/cqlname"
	"github.com/partmon/partmon/model"
	"go.yaml.in/yaml/v3"
)

func readNodetoolFixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatalf("reading fixture: %v", err)
	}
	return string(b)
}

// frequencyRows is a deliberately plain reading of a capture: the row lines
// of the two frequency sections, split on blanks. The parser's results are
// checked against it, not against numbers copied into the test.
func frequencyRows(out string) map[string][][]string {
	rows := map[string][][]string{}
	op := ""
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "Frequency of reads by partition:"):
			op = "read"
		case strings.HasPrefix(line, "Frequency of writes by partition:"):
			op = "write"
		case line != "" && line[0] != ' ':
			op = ""
		case op != "" && len(strings.Fields(line)) == 4 && strings.Contains(strings.Fields(line)[0], "."):
			rows[op] = append(rows[op], strings.Fields(line))
		}
	}
	return rows
}

func TestParseProfileloadRealOutputs(t *testing.T) {
	coldKey := regexp.MustCompile(`^k-\d{5}$`)
	tests := []struct {
		fixture  string
		topK     int  // -k of the command that produced it (README.md)
		hotFirst bool // the node owns the hot key
	}{
		{"profileload_owner_k10.txt", 10, true},
		{"profileload_owner_k255.txt", 255, true},
		{"profileload_nonowner.txt", 10, false},
		{"profileload_all_samplers.txt", 10, true},
		{"profileload_idle.txt", 10, false},
	}
	for _, tc := range tests {
		t.Run(tc.fixture, func(t *testing.T) {
			out := readNodetoolFixture(t, tc.fixture)
			got, err := ParseProfileload(out)
			if err != nil {
				t.Fatalf("ParseProfileload: %v", err)
			}
			want := frequencyRows(out)
			for _, op := range []string{"read", "write"} {
				var mine []model.HotPartition
				for _, h := range got {
					if h.Op == op {
						mine = append(mine, h)
					}
				}
				if len(mine) != len(want[op]) {
					t.Fatalf("%s: %d entries, the capture has %d rows", op, len(mine), len(want[op]))
				}
				if len(mine) > tc.topK {
					t.Errorf("%s: %d entries, more than -k %d", op, len(mine), tc.topK)
				}
				var sum int64
				for i, h := range mine {
					row := want[op][i]
					if h.Keyspace+"."+h.Table != row[0] || h.Key != row[1] ||
						strconv.FormatInt(h.Count, 10) != row[2] || strconv.FormatInt(h.Error, 10) != row[3] {
						t.Errorf("%s entry %d = %+v, capture row %q", op, i, h, row)
					}
					if h.Source != "nodetool" {
						t.Errorf("%s entry %d source %q", op, i, h.Source)
					}
					if h.Key != "hot" && !coldKey.MatchString(h.Key) {
						t.Errorf("%s entry %d key %q is neither hot nor a cold key", op, i, h.Key)
					}
					if i > 0 && h.Count > mine[i-1].Count {
						t.Errorf("%s entry %d count %d above the previous %d: order lost", op, i, h.Count, mine[i-1].Count)
					}
					sum += h.Count
				}
				for _, h := range mine {
					if h.Total != sum {
						t.Errorf("%s %q total %d, want the sum of listed counts %d", op, h.Key, h.Total, sum)
					}
				}
				if tc.hotFirst {
					if len(mine) == 0 || mine[0].Key != "hot" {
						t.Errorf("%s: top key is not hot: %+v", op, mine)
					}
				} else {
					for _, h := range mine {
						if h.Key == "hot" {
							t.Errorf("%s: hot key sampled on a node that does not own it", op)
						}
					}
				}
			}
		})
	}
}

func TestParseProfileloadDominanceOnOwner(t *testing.T) {
	// With -k 255 of capacity 256 the listed counts add up to nearly every
	// sampled read, so the hot key's share is its share of the node's reads.
	got, err := ParseProfileload(readNodetoolFixture(t, "profileload_owner_k255.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range got {
		if h.Key == "hot" && h.Op == "read" {
			if share := float64(h.Count) / float64(h.Total); share < 0.85 || share > 1 {
				t.Errorf("hot share of reads = %.3f, want the 0.92 the traffic implies (README.md)", share)
			}
			return
		}
	}
	t.Fatal("no hot read entry")
}

func TestParseProfileloadEdgeCases(t *testing.T) {
	const head = "Frequency of reads by partition:\n   Table     Partition Count +/-\n"
	tests := []struct {
		name    string
		out     string
		wantKey []string // keys in order; nil with wantErr
		wantErr string
	}{
		{"key with inner spaces", head + "   ks.t      a  b c     7     0  \n", []string{"a  b c"}, ""},
		{"composite key", head + "   ks.t      sensor-7:2026-08 7 0\n", []string{"sensor-7:2026-08"}, ""},
		{"key that looks like a number", head + "   ks.t      42        7     1  \n", []string{"42"}, ""},
		{"windows line ends", strings.ReplaceAll(head+"   ks.t      k 3 0\n", "\n", "\r\n"), []string{"k"}, ""},
		{"writes section only", "Frequency of writes by partition:\n   Table Partition Count +/-\n   ks.t k 1 0\n", []string{"k"}, ""},
		// HotSpot prints its own warnings on stdout (unified logging, VM output).
		{"JVM log lines among nodetool's", "[3.512s][warning][os,thread] Failed to start thread \"Unknown thread\" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 0k, detached.\n" +
			head + "   ks.t      k 3 0\n[4.001s][warning][gc,alloc] main: retrying allocation\n   ks.t      j 2 0\n", []string{"k", "j"}, ""},
		{"VM warning first", "OpenJDK 64-Bit Server VM warning: CodeCache is full. Compiler has been disabled.\n" + head + "   ks.t      k 3 0\n", []string{"k"}, ""},
		{"empty output", "", nil, "no sampler section"},
		{"argument error on stdout", readNodetoolFixture(t, "profileload_bad_topk.stdout"), nil, "outside any sampler section"},
		{"missing header", "Frequency of reads by partition:\n   ks.t k 1 0\n", nil, "not the Table Partition Count +/- header"},
		{"negative count", head + "   ks.t      k -1 0\n", nil, "column 13: the count is not"},
		{"negative error", head + "   ks.t      k 1 -3\n", nil, "column 15: the +/- is not"},
		{"count not a number", head + "   ks.t      k many 0\n", nil, "column 13: the count is not"},
		{"count beyond int64", head + "   ks.t      k 9223372036854775808 0\n", nil, "count"},
		{"row too short", head + "   ks.t      1 0\n", nil, "columns"},
		{"table without keyspace", head + "   t      k 1 0\n", nil, "keyspace.table"},
		{"sum beyond int64", head + "   ks.t a 9223372036854775807 0\n   ks.t b 1 0\n", nil, "overflow"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseProfileload(tc.out)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var keys []string
			for _, h := range got {
				keys = append(keys, h.Key)
			}
			if strings.Join(keys, "|") != strings.Join(tc.wantKey, "|") {
				t.Errorf("keys = %q, want %q", keys, tc.wantKey)
			}
		})
	}
}

func TestSamplerConfigValidate(t *testing.T) {
	good := SamplerConfig{Command: []string{"nodetool"}}.WithDefaults()
	if err := good.Validate(); err != nil {
		t.Fatalf("defaults invalid: %v", err)
	}
	tests := []struct {
		name    string
		edit    func(*SamplerConfig)
		wantErr string
	}{
		{"no command", func(c *SamplerConfig) { c.Command = nil }, "command: empty"},
		{"sub-millisecond", func(c *SamplerConfig) { c.Duration = time.Microsecond }, "duration"},
		{"duration beyond an int of ms", func(c *SamplerConfig) { c.Duration = 1 << 31 * time.Millisecond }, "duration"},
		{"capacity above nodetool's limit", func(c *SamplerConfig) { c.Capacity = 1025 }, "capacity"},
		{"top_k equal to capacity", func(c *SamplerConfig) { c.TopK = c.Capacity }, "below capacity"},
		{"unknown sampler", func(c *SamplerConfig) { c.Samplers = []string{"READS", "LOCAL_READ_TIME"} }, "LOCAL_READ_TIME"},
		{"parallel too high", func(c *SamplerConfig) { c.Parallel = 100 }, "parallel"},
		{"max_concurrent_runs too high", func(c *SamplerConfig) { c.MaxConcurrentRuns = 65 }, "max_concurrent_runs"},
		{"max_concurrent_runs negative", func(c *SamplerConfig) { c.MaxConcurrentRuns = -1 }, "max_concurrent_runs"},
		{"password on the command line", func(c *SamplerConfig) { c.Command = []string{"nodetool", "-u", "jmx", "-pw", "s3cret"} }, "use -pwf"},
		{"long password flag", func(c *SamplerConfig) { c.Command = []string{"nodetool", "--password=s3cret"} }, "use -pwf"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := good
			c.Samplers = append([]string(nil), good.Samplers...)
			tc.edit(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// replayNodetool is a stand-in for nodetool: a real shell that records its
// arguments and prints a real captured output. It checks the process
// handling and the command line; nodetool_sampler_integration_test.go (in
// package collector) runs the real nodetool.
func replayNodetool(t *testing.T, fixture string) (cmd []string, argsFile string) {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	return replayFile(t, abs)
}

// replayFile is a nodetool that records its arguments and prints the file
// at path.
func replayFile(t *testing.T, path string) (cmd []string, argsFile string) {
	t.Helper()
	argsFile = filepath.Join(t.TempDir(), "args")
	script := `printf '%s\n' "$@" >> "$ARGS"; cat "$FIXTURE"`
	script = "ARGS=" + shellQuote(argsFile) + " FIXTURE=" + shellQuote(path) + "; " + script
	return []string{"sh", "-c", script, "nodetool", "--host-opt"}, argsFile
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// One run for every table, whatever their number: a duration and no table,
// -k one below the capacity.
func TestSampleCommandLine(t *testing.T) {
	tables := []string{"cap.events", "cap.users", "cap2.sessions"}
	for i := 0; i < 1000; i++ {
		tables = append(tables, "bench_"+strconv.Itoa(i/50)+".t"+strconv.Itoa(i%50))
	}
	cmd, argsFile := replayNodetool(t, "profileload_all_tables_k255.txt")
	cfg := SamplerConfig{Command: cmd, Duration: 1500 * time.Millisecond, Capacity: 512, TopK: 20, Samplers: []string{"reads", "WRITES"}}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got, err := Sample(ctx, cfg, tables)
	if err != nil {
		t.Fatal(err)
	}
	args, err := os.ReadFile(argsFile)
	if err != nil {
		t.Fatal(err)
	}
	want := "--host-opt profileload 1500 -s 512 -k 511 -a READS,WRITES"
	if gotArgs := strings.Join(strings.Fields(string(args)), " "); gotArgs != want {
		t.Errorf("nodetool arguments = %q, want %q (one run)", gotArgs, want)
	}
	if len(got) == 0 {
		t.Fatal("no hot partitions")
	}
	for _, h := range got {
		if h.Window != 1.5 || h.Source != "nodetool" {
			t.Errorf("entry %+v: window %v source %q, want 1.5 and nodetool", h, h.Window, h.Source)
		}
	}
}

func TestSampleFailures(t *testing.T) {
	tests := []struct {
		name    string
		command []string
		tables  []string
		wantErr string
	}{
		{"another sampling in progress", []string{"sh", "-c", "cat testdata/profileload_busy.stderr >&2; exit 2"},
			[]string{"cap.events"}, "the node's sampler is busy"},
		{"argument error on stdout", []string{"sh", "-c", "cat testdata/profileload_bad_topk.stdout; exit 1"},
			[]string{"pm_hot.kv"}, "TopK count (-k) option must be smaller"},
		{"exit 0 but not profileload output", []string{"sh", "-c", "cat testdata/profileload_bad_topk.stdout"},
			[]string{"pm_hot.kv"}, "outside any sampler section"},
		{"a requested section missing", []string{"sh", "-c", "sed '/writes/,$d' testdata/profileload_all_tables_k10.txt"},
			[]string{"cap.events"}, "no WRITES section"},
		{"command not found", []string{"/nonexistent/nodetool"}, []string{"pm_hot.kv"}, "no such file"},
		{"runaway output", []string{"sh", "-c", "yes"}, []string{"pm_hot.kv"}, "printed more than 4194304 bytes"},
		{"bad table name", []string{"true"}, []string{"pm_hot"}, "keyspace.table"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := SamplerConfig{Command: tc.command, Duration: time.Millisecond}
			_, err := Sample(context.Background(), cfg, tc.tables)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

// No user table: nothing to sample, and no JVM started for it.
func TestSampleNoTables(t *testing.T) {
	cmd, argsFile := replayNodetool(t, "profileload_all_tables_k10.txt")
	hot, err := Sample(context.Background(), SamplerConfig{Command: cmd, Duration: time.Millisecond}, nil)
	if err != nil || len(hot) != 0 {
		t.Fatalf("got %v, %v; want nothing", hot, err)
	}
	if _, statErr := os.Stat(argsFile); statErr == nil {
		t.Error("nodetool was started without a table to sample")
	}
}

func TestSampleRefusesShortDeadline(t *testing.T) {
	cmd, argsFile := replayNodetool(t, "profileload_all_tables_k10.txt")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err := Sample(ctx, SamplerConfig{Command: cmd, Duration: 10 * time.Second}, []string{"cap.events"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if _, statErr := os.Stat(argsFile); statErr == nil {
		t.Error("nodetool was started although the deadline could not be met")
	}
}

// A nodetool that hangs (a wrapper script whose JVM child never returns) is
// killed with its whole process group when the context ends.
func TestSampleKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	script := "sleep 300 & echo $! > " + shellQuote(pidFile) + "; wait"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := Sample(ctx, SamplerConfig{Command: []string{"sh", "-c", script}, Duration: time.Millisecond}, []string{"pm_hot.kv"})
		errc <- err
	}()
	var pid int
	for pid == 0 {
		select {
		case err := <-errc:
			t.Fatalf("returned before being cancelled: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
	}
	cancel()
	err := <-errc
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	// The grandchild must be gone (or a zombie awaiting its reaper).
	for range 100 {
		if !processRunning(pid) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Errorf("grandchild %d still running after cancel", pid)
}

func processRunning(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return false
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// Field 3 is the state; Z is a zombie.
	fields := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	return len(fields) > 0 && fields[0] != "Z"
}

func FuzzParseProfileload(f *testing.F) {
	for _, name := range []string{"profileload_owner_k10.txt", "profileload_all_samplers.txt", "profileload_idle.txt", "profileload_bad_topk.stdout",
		"profileload_all_tables_k10.txt", "profileload_all_tables_idle.txt", "profileload_busy.stderr"} {
		f.Add(readNodetoolFixture(f, name))
	}
	f.Fuzz(func(t *testing.T, out string) {
		hot, err := ParseProfileload(out)
		if err != nil {
			return
		}
		for _, h := range hot {
			if h.Op != "read" && h.Op != "write" {
				t.Fatalf("op %q", h.Op)
			}
			if h.Count < 0 || h.Error < 0 || h.Total < h.Count {
				t.Fatalf("bad numbers %+v", h)
			}
			if cqlname.Check("keyspace", h.Keyspace) != nil || cqlname.Check("table", h.Table) != nil {
				t.Fatalf("bad table %+v", h)
			}
			if h.Source != "nodetool" {
				t.Fatalf("source %q", h.Source)
			}
		}
	})
}

func BenchmarkParseProfileload(b *testing.B) {
	out := readNodetoolFixture(b, "profileload_owner_k255.txt")
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		if _, err := ParseProfileload(out); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSamplerConfigYAML(t *testing.T) {
	const doc = `
command: [nodetool, -h, 127.0.0.1, -p, "7199"]
duration: 15s
capacity: 512
top_k: 50
samplers: [READS]
parallel: 2
max_concurrent_runs: 3
`
	var got SamplerConfig
	dec := yaml.NewDecoder(strings.NewReader(doc))
	dec.KnownFields(true)
	if err := dec.Decode(&got); err != nil {
		t.Fatal(err)
	}
	want := SamplerConfig{Command: []string{"nodetool", "-h", "127.0.0.1", "-p", "7199"}, Duration: 15 * time.Second,
		Capacity: 512, TopK: 50, Samplers: []string{"READS"}, Parallel: 2, MaxConcurrentRuns: 3}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoded %+v, want %+v", got, want)
	}
	if err := got.Validate(); err != nil {
		t.Errorf("Validate: %v", err)
	}
}

func TestSamplerConfigForAddress(t *testing.T) {
	tests := []struct {
		name       string
		command    []string
		everyNode  bool
		forAddress []string
	}{
		{"no placeholder", []string{"nodetool", "-h", "10.0.0.1"}, false, []string{"nodetool", "-h", "10.0.0.1"}},
		{"placeholder argument", []string{"nodetool", "-h", "{address}", "-p", "7199"}, true, []string{"nodetool", "-h", "10.0.0.2", "-p", "7199"}},
		{"placeholder inside an argument", []string{"ssh", "cassandra@{address}", "nodetool"}, true, []string{"ssh", "cassandra@10.0.0.2", "nodetool"}},
		{"two placeholders", []string{"sh", "-c", "nodetool -h {address} # {address}"}, true, []string{"sh", "-c", "nodetool -h 10.0.0.2 # 10.0.0.2"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := SamplerConfig{Command: tc.command, Duration: time.Second}
			if !c.Configured() || c.TargetsEveryNode() != tc.everyNode {
				t.Errorf("configured %v, targets every node %v, want true, %v", c.Configured(), c.TargetsEveryNode(), tc.everyNode)
			}
			before := append([]string(nil), tc.command...)
			got := c.ForAddress("10.0.0.2")
			if !reflect.DeepEqual(got.Command, tc.forAddress) || got.Duration != time.Second {
				t.Errorf("ForAddress = %+v, want command %q", got, tc.forAddress)
			}
			if !reflect.DeepEqual(c.Command, before) {
				t.Errorf("ForAddress changed the original command to %q", c.Command)
			}
		})
	}
	if (SamplerConfig{}).Configured() {
		t.Error("an empty command is configured")
	}
}

// A key that breaks the output's shape (a newline, a number-like tail, an
// unterminated quote) makes the run fail; its error names lines and
// columns, never a key: the failed run's keys were never learned, so
// nothing downstream could scrub them.
func TestErrorsQuoteNoKey(t *testing.T) {
	const key = "SECRET-acct\"<b>[x](y)"
	const head = "Frequency of reads by partition:\n   Table     Partition Count +/-\n"
	outputs := []string{
		head + "   ks.t      " + key + "\nSECRET-tail 5 0\n",
		head + "   ks.t      " + key + " SECRET-x 0\n",
		head + "   ks.t      " + key + " 5 SECRET-y\n",
		head + "   SECRET-acct      k 5 0\n",
		"SECRET-acct\n" + head,
		"Frequency of reads by partition:\n   SECRET-acct Partition Count +/-\n",
		head + "   ks.t      " + key + " 5\n",
	}
	for i, out := range outputs {
		_, err := ParseProfileload(out)
		if err == nil {
			t.Fatalf("output %d parsed", i)
		}
		if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("output %d: error quotes a key: %v", i, err)
		}
		script := filepath.Join(t.TempDir(), "out")
		if err := os.WriteFile(script, []byte(out), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, exit := range []string{"0", "1"} {
			cfg := SamplerConfig{Command: []string{"sh", "-c", "cat " + shellQuote(script) + "; exit " + exit}, Duration: time.Millisecond}
			_, err := Sample(context.Background(), cfg, []string{"ks.t"})
			if err == nil || strings.Contains(err.Error(), "SECRET") {
				t.Errorf("output %d, exit %s: error %v quotes a key or is missing", i, exit, err)
			}
		}
	}
}

// FuzzProfileloadErrorsNameNoKey: a key of any bytes (newlines, quotes,
// markdown, HTML, invalid UTF-8) between two markers, in a row of a real
// profileload output, either parses back or fails with an error holding no
// piece of it: a failed run's keys were never learned, so no scrub would
// catch them in the log, the status page or the API.
func FuzzProfileloadErrorsNameNoKey(f *testing.F) {
	for _, seed := range []string{"customer|42", "a\nb", "a\n   ks.t b 5 0", "x 5", "5 0\nFrequency of writes by partition:", `"quoted"`,
		"[x](https://evil.example/)", "<b>bold</b>", "\xff\xfe", "Table Partition Count +/-", "ks.t"} {
		f.Add(seed)
	}
	head := readNodetoolFixture(f, "profileload_owner_k10.txt")
	f.Fuzz(func(t *testing.T, key string) {
		planted := "zqK7x" + key + "x7Kqz"
		out := strings.Replace(head, "   Table     Partition Count +/-\n", "   Table     Partition Count +/-\n"+
			"   pm_hot.kv "+planted+" 7 0\n", 1)
		hot, err := ParseProfileload(out)
		if err != nil {
			if strings.Contains(err.Error(), "zqK7x") || strings.Contains(err.Error(), "x7Kqz") {
				t.Fatalf("error quotes a key: %v", err)
			}
			return
		}
		for _, h := range hot {
			if strings.Contains(h.Key, "zqK7x") && h.Key != strings.TrimSpace(planted) && !strings.ContainsAny(key, "\r\n") {
				t.Fatalf("key %q parsed as %q", planted, h.Key)
			}
		}
	})
}
