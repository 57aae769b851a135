package nodetool

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/partmon/partmon/model"
)

// capturedRow is one row of a frequency section read by the column offsets
// of its header line (nodetool pads every column to its widest cell), a
// reading independent of the parser's, which splits on blanks.
type capturedRow struct {
	op, table, key string
	count, err     int64
}

func columnRows(t *testing.T, out string) []capturedRow {
	t.Helper()
	var rows []capturedRow
	op := ""
	var cols []int
	for _, line := range strings.Split(out, "\n") {
		switch {
		case line == "Frequency of reads by partition:":
			op, cols = "read", nil
		case line == "Frequency of writes by partition:":
			op, cols = "write", nil
		case line != "" && line[0] != ' ':
			op = ""
		case op == "" || strings.TrimSpace(line) == "" || strings.Contains(line, "Nothing recorded"):
		case cols == nil:
			for _, title := range []string{"Table", "Partition", "Count", "+/-"} {
				cols = append(cols, strings.Index(line, title))
			}
		default:
			cell := func(i int) string {
				end := len(line)
				if i+1 < len(cols) {
					end = cols[i+1]
				}
				return strings.TrimSpace(line[cols[i]:end])
			}
			count, err1 := strconv.ParseInt(cell(2), 10, 64)
			errBound, err2 := strconv.ParseInt(cell(3), 10, 64)
			if err1 != nil || err2 != nil {
				t.Fatalf("row %q: count %q, +/- %q", line, cell(2), cell(3))
			}
			rows = append(rows, capturedRow{op, cell(0), cell(1), count, errBound})
		}
	}
	return rows
}

// The real outputs of one run over every table of a node (README.md).
var allTablesCaptures = []struct {
	fixture  string
	capacity int // -s of the command; -k was capacity − 1 or 10
	topK     int
}{
	{"profileload_all_tables_k255.txt", 256, 255},
	{"profileload_all_tables_k10.txt", 256, 10},
	{"profileload_all_tables_s1024_k1023.txt", 1024, 1023},
	{"profileload_all_tables_idle.txt", 256, 10},
	{"profileload_all_tables_k10_4.1.10.txt", 256, 10},
	{"profileload_all_tables_k255_4.1.10.txt", 256, 255},
	{"profileload_all_tables_k10_4.0.19.txt", 256, 10},
	{"profileload_all_tables_k255_4.0.19.txt", 256, 255},
}

func TestParseProfileloadAllTables(t *testing.T) {
	for _, tc := range allTablesCaptures {
		t.Run(tc.fixture, func(t *testing.T) {
			out := readNodetoolFixture(t, tc.fixture)
			got, err := ParseProfileload(out)
			if err != nil {
				t.Fatal(err)
			}
			want := columnRows(t, out)
			if len(got) != len(want) {
				t.Fatalf("%d entries, the capture has %d rows", len(got), len(want))
			}
			sums := map[string]int64{}
			for _, w := range want {
				sums[w.op+" "+w.table] += w.count
			}
			tables := map[string]bool{}
			for i, h := range got {
				w := want[i]
				if h.Op != w.op || model.TableKey(h.Keyspace, h.Table) != w.table || h.Key != w.key || h.Count != w.count || h.Error != w.err {
					t.Errorf("entry %d = %+v, capture row %+v", i, h, w)
				}
				if h.Total != sums[w.op+" "+w.table] {
					t.Errorf("entry %d total %d, want the table's listed sum %d", i, h.Total, sums[w.op+" "+w.table])
				}
				if i > 0 && got[i-1].Op == h.Op && h.Count > got[i-1].Count {
					t.Errorf("entry %d: count %d above the previous %d: Cassandra sorts the merged list", i, h.Count, got[i-1].Count)
				}
				tables[w.table] = true
			}
			perOp := map[string]int{}
			for _, w := range want {
				perOp[w.op]++
			}
			for op, n := range perOp {
				if n > tc.topK {
					t.Errorf("%s: %d rows, more than -k %d: the list is one for the whole node", op, n, tc.topK)
				}
			}
			if len(want) > 0 && len(tables) < 2 {
				t.Errorf("rows of %d table(s); the capture had traffic on several", len(tables))
			}
		})
	}
}

// What Sample keeps of a real run: the asked tables only, TopK per table and
// operation (the highest), Total as the table's listed sum where the merged
// list was not cut, 0 (unknown) where it was.
func TestSampleKeepsAskedTablesAndTotals(t *testing.T) {
	tests := []struct {
		name     string
		fixture  string
		capacity int
		topK     int
		tables   []string
		cut      bool
	}{
		{"list cut at 255", "profileload_all_tables_k255.txt", 256, 10, []string{"cap.events", "cap.users", "cap.MixedCase", "cap2.sessions"}, true},
		{"list cut at 10", "profileload_all_tables_k10.txt", 11, 10, []string{"cap.events", "cap.MixedCase"}, true},
		{"list not cut", "profileload_all_tables_s1024_k1023.txt", 1024, 5, []string{"cap.users", "cap.MixedCase", "cap2.sessions"}, false},
		{"one table of several", "profileload_all_tables_s1024_k1023.txt", 1024, 3, []string{"cap2.sessions"}, false},
		{"idle node", "profileload_all_tables_idle.txt", 256, 10, []string{"cap.events"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := readNodetoolFixture(t, tc.fixture)
			rows := columnRows(t, out)
			cmd, _ := replayNodetool(t, tc.fixture)
			cfg := SamplerConfig{Command: cmd, Duration: 5 * time.Second, Capacity: tc.capacity, TopK: tc.topK}
			got, err := Sample(context.Background(), cfg, tc.tables)
			if err != nil {
				t.Fatal(err)
			}
			asked := map[string]bool{}
			for _, tb := range tc.tables {
				asked[tb] = true
			}
			// Expected: per (op, table) of the asked tables, the topK highest rows.
			sums := map[string]int64{}
			expect := map[string][]int64{}
			for _, r := range rows {
				if asked[r.table] {
					sums[r.op+" "+r.table] += r.count
					expect[r.op+" "+r.table] = append(expect[r.op+" "+r.table], r.count)
				}
			}
			gotCounts := map[string][]int64{}
			for _, h := range got {
				id := h.Op + " " + model.TableKey(h.Keyspace, h.Table)
				if !asked[model.TableKey(h.Keyspace, h.Table)] {
					t.Fatalf("entry of a table not asked for: %+v", h)
				}
				gotCounts[id] = append(gotCounts[id], h.Count)
				wantTotal := sums[id]
				if tc.cut {
					wantTotal = 0
				}
				if h.Total != wantTotal {
					t.Errorf("%s %q: total %d, want %d (list cut: %v)", id, h.Key, h.Total, wantTotal, tc.cut)
				}
				if h.Window != 5 {
					t.Errorf("window %v, want 5", h.Window)
				}
			}
			for id, counts := range expect {
				sort.Slice(counts, func(i, j int) bool { return counts[i] > counts[j] })
				want := counts[:min(len(counts), tc.topK)]
				if join(gotCounts[id]) != join(want) {
					t.Errorf("%s: counts kept %v, want the %d highest %v", id, gotCounts[id], tc.topK, want)
				}
			}
			if len(rows) > 0 && len(expect) == 0 {
				t.Fatal("the asked tables have no row in the capture: the case checks nothing")
			}
		})
	}
}

func join(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return strings.Join(s, ",")
}
