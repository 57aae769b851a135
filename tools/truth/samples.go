package truth

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Why the corpus keeps partmon's own sampler output: Cassandra runs one
// sampling per table at a time (FrequencySampler.beginSampling throws
// "Sampling already in progress"), so a reference `nodetool profileload`
// can only sample another window than partmon's. Two windows of the same
// traffic differ by more than sampling noise when the traffic's realized
// mix moves (docs/truth-corpus.md, "Hot-key shares: the same window"). The
// recorder wraps the command partmon runs and keeps what nodetool printed
// for partmon's window: the reference a sampled share is held to.

// recorderScript runs the command after its two arguments (the capture
// directory and the node's address) and, for a profileload run that
// succeeded, keeps what it printed as ADDRESS-START-END.txt (Unix
// nanoseconds). Other runs (tablehistograms) pass straight through.
const recorderScript = `#!/usr/bin/env bash
# Written by the truth corpus (tools/truth/samples.go): runs the real nodetool
# command after DIR ADDRESS and keeps what a profileload run printed in DIR.
set -u
dir=$1 addr=$2
shift 2
case " $* " in
*" profileload "*) ;;
*) exec "$@" ;;
esac
start=$(date +%s%N)
out=$(mktemp "$dir/.run.XXXXXX")
"$@" >"$out"
rc=$?
cat "$out"
if [ "$rc" -eq 0 ]; then
	mv "$out" "$dir/$addr-$start-$(date +%s%N).txt"
else
	rm -f "$out"
fi
exit "$rc"
`

// writeRecorder writes the recorder into dir and makes the capture
// directory for one phase; it returns the command prefix partmon's sampler
// config uses in front of the real nodetool command.
func writeRecorder(outDir, phase string) ([]string, error) {
	script := filepath.Join(outDir, "record-profileload.sh")
	if err := os.WriteFile(script, []byte(recorderScript), 0o755); err != nil {
		return nil, err
	}
	capDir := filepath.Join(outDir, phase+"-profileload")
	if err := os.RemoveAll(capDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(capDir, 0o755); err != nil {
		return nil, err
	}
	return []string{script, capDir, "{address}"}, nil
}

// SamplerRun is one `nodetool profileload` run partmon made on a node.
type SamplerRun struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	File  string    `json:"file"`
	// Tables are the sampled keys by "ks.table".
	Tables map[string]Profile `json:"tables"`
	// ReadsListed and WritesListed count the node's listed rows per sampler
	// (every table): Cassandra cuts the merged list at -k rows, and a table
	// of a cut list has keys missing, so its listed counts do not add up to
	// its sampled operations.
	ReadsListed  int `json:"reads_listed"`
	WritesListed int `json:"writes_listed"`
	sections     int // READS and WRITES titles seen
}

// samplerListed is the -k partmon's sampler passes (capacity 256 − 1): a
// section with that many rows was cut.
const samplerListed = 255

// loadSamplerRuns reads a phase's captures, by node, oldest first.
func loadSamplerRuns(dir string) (map[string][]SamplerRun, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][]SamplerRun{}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".txt") {
			continue
		}
		parts := strings.Split(strings.TrimSuffix(name, ".txt"), "-")
		if len(parts) != 3 {
			continue
		}
		start, err1 := strconv.ParseInt(parts[1], 10, 64)
		end, err2 := strconv.ParseInt(parts[2], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("capture %s: not ADDRESS-START-END.txt", name)
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			return nil, err
		}
		run := parseSamplerRun(string(b))
		run.Start, run.End, run.File = time.Unix(0, start), time.Unix(0, end), name
		out[parts[0]] = append(out[parts[0]], run)
	}
	for _, runs := range out {
		sort.Slice(runs, func(i, j int) bool { return runs[i].End.Before(runs[j].End) })
	}
	return out, nil
}

// parseSamplerRun reads the READS and WRITES sections of a profileload run,
// one table or every table (Cassandra 5.0 metrics/SamplingManager.java
// ResultBuilder): a title line per sampler, then rows "   ks.table key
// count +/-". Keys may contain spaces, so the columns are taken from the
// right.
func parseSamplerRun(out string) SamplerRun {
	run := SamplerRun{Tables: map[string]Profile{}}
	op := ""
	for _, line := range strings.Split(out, "\n") {
		t := strings.TrimSpace(line)
		switch t {
		case "Frequency of reads by partition:":
			op, run.sections = "read", run.sections+1
			continue
		case "Frequency of writes by partition:":
			op, run.sections = "write", run.sections+1
			continue
		}
		if strings.HasSuffix(t, ":") {
			op = ""
			continue
		}
		f := strings.Fields(t)
		if op == "" || len(f) < 4 || !strings.Contains(f[0], ".") {
			continue
		}
		count, err := strconv.ParseInt(f[len(f)-2], 10, 64)
		if err != nil {
			continue
		}
		errBound, _ := strconv.ParseInt(f[len(f)-1], 10, 64)
		kc := KeyCount{Key: strings.Join(f[1:len(f)-2], " "), Count: count, Error: errBound}
		p := run.Tables[f[0]]
		if op == "read" {
			p.Reads = append(p.Reads, kc)
			run.ReadsListed++
		} else {
			p.Writes = append(p.Writes, kc)
			run.WritesListed++
		}
		run.Tables[f[0]] = p
	}
	return run
}

// cut says whether the node's list of an operation partmon's finding speaks
// of was cut in this run.
func (s SamplerRun) cut(reads, writes bool) bool {
	return (reads && s.ReadsListed >= samplerListed) || (writes && s.WritesListed >= samplerListed)
}

// count is the key's listed count for the operations.
func (p Profile) count(key string, reads, writes bool) int64 {
	var n int64
	for _, list := range [][]KeyCount{pick(reads, p.Reads), pick(writes, p.Writes)} {
		for _, kc := range list {
			if kc.Key == key {
				n += kc.Count
			}
		}
	}
	return n
}

func pick(ok bool, l []KeyCount) []KeyCount {
	if ok {
		return l
	}
	return nil
}

// sameWindow is the run of node whose window partmon's finding reports:
// the latest run that ended before the report was read and lists the key
// with partmon's count; without such a run, the latest one (partmon's
// count then matches no window nodetool printed, and the check says so).
func sameWindow(runs []SamplerRun, before time.Time, table, key string, count int64, reads, writes bool) (SamplerRun, bool) {
	var latest *SamplerRun
	for i := len(runs) - 1; i >= 0; i-- {
		r := &runs[i]
		if !before.IsZero() && r.End.After(before) {
			continue
		}
		if latest == nil {
			latest = r
		}
		if count > 0 && r.Tables[table].count(key, reads, writes) == count {
			return *r, true
		}
	}
	if latest == nil {
		return SamplerRun{}, false
	}
	return *latest, true
}
