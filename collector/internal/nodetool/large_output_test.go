package nodetool

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// largeTables is the table count the large-output tests generate:
// 10,000 tables, in keyspaces of 100.
const largeTables = 10_000

func largeTableName(i int) (ks, table string) {
	return fmt.Sprintf("big_%03d", i/100), fmt.Sprintf("t%04d", i)
}

// largeTablestats is `tablestats -F json` of largeTables tables, each
// table's object the real 5.0.8 capture's hll.t (about 1.8 KB) with
// number_of_partitions_estimate set to its index, and each keyspace with
// the capture's keyspace-level fields.
func largeTablestats(t testing.TB) []byte {
	var real map[string]json.RawMessage
	if err := json.Unmarshal([]byte(readNodetoolFixture(t, "tablestats_json_5.0.8.json")), &real); err != nil {
		t.Fatal(err)
	}
	var ksFields map[string]json.RawMessage
	if err := json.Unmarshal(real["hll"], &ksFields); err != nil {
		t.Fatal(err)
	}
	var tables map[string]map[string]json.RawMessage
	if err := json.Unmarshal(ksFields["tables"], &tables); err != nil {
		t.Fatal(err)
	}
	table := tables["t"]
	var b bytes.Buffer
	fmt.Fprintf(&b, "{\n  \"total_number_of_tables\" : %d", largeTables)
	for i := range largeTables {
		ks, tb := largeTableName(i)
		if i%100 == 0 {
			if i > 0 {
				b.WriteString("\n    }\n  }")
			}
			fmt.Fprintf(&b, ",\n  %q : {\n", ks)
			for k, v := range ksFields {
				if k != "tables" {
					fmt.Fprintf(&b, "    %q : %s,\n", k, v)
				}
			}
			b.WriteString("    \"tables\" : {\n")
		} else {
			b.WriteString(",\n")
		}
		table["number_of_partitions_estimate"] = json.RawMessage(fmt.Sprint(i))
		obj, err := json.MarshalIndent(table, "      ", "  ")
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "      %q : %s", tb, obj)
	}
	b.WriteString("\n    }\n  }\n}\n")
	return b.Bytes()
}

// largeTablehistograms is `tablehistograms` of the real capture's blocks
// (system tables among them) followed by largeTables blocks shaped like
// its th/wide block, each with Cell Count Max set to its index.
func largeTablehistograms(t testing.TB) []byte {
	real := readNodetoolFixture(t, "tablehistograms_all_tables_5.0.8.txt")
	start := strings.Index(real, "th/wide histograms\n")
	end := strings.Index(real[start:], "\n\n")
	if start < 0 || end < 0 {
		t.Fatal("no th/wide block in the capture")
	}
	block := real[start : start+end+2]
	maxAt := strings.LastIndex(block, "61214")
	var b bytes.Buffer
	b.WriteString(real)
	for i := range largeTables {
		ks, tb := largeTableName(i)
		b.WriteString(ks + "/" + tb + strings.TrimPrefix(block[:maxAt], "th/wide"))
		fmt.Fprintf(&b, "%5d%s", i, block[maxAt+5:])
	}
	return b.Bytes()
}

func largeTableList() []string {
	tables := make([]string, largeTables)
	for i := range tables {
		ks, tb := largeTableName(i)
		tables[i] = ks + "." + tb
	}
	return tables
}

// At 10,000 tables both outputs are several times the 4 MiB the
// runs were cut at; each is read whole, every table's count returned.
func TestTableCountsAtTenThousandTables(t *testing.T) {
	cases := []struct {
		name string
		out  []byte
		run  func(context.Context, SamplerConfig, []string) (map[string]int64, error)
	}{
		{"tablestats -F json", largeTablestats(t), distinctPartitionsByName},
		{"tablehistograms", largeTablehistograms(t), cellCountsOnly},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if len(c.out) <= maxOutput {
				t.Fatalf("the output is %d bytes, not above the old %d-byte cap", len(c.out), maxOutput)
			}
			path := filepath.Join(t.TempDir(), "out")
			if err := os.WriteFile(path, c.out, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd, _ := replayFile(t, path)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			got, err := c.run(ctx, SamplerConfig{Command: cmd}, largeTableList())
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != largeTables {
				t.Fatalf("%d tables, want %d", len(got), largeTables)
			}
			for i := range largeTables {
				ks, tb := largeTableName(i)
				if v, ok := got[ks+"."+tb]; !ok || v != int64(i) {
					t.Fatalf("%s.%s = %d (present %v), want %d", ks, tb, v, ok, i)
				}
			}
		})
	}
}

// distinctPartitionsByName is DistinctPartitions asking every table by name.
func distinctPartitionsByName(ctx context.Context, cfg SamplerConfig, tables []string) (map[string]int64, error) {
	return DistinctPartitions(ctx, cfg, tables, nil)
}

// cellCountsOnly is CellCounts with each table's Cell Count Max alone, the
// count the large-output tests generate.
func cellCountsOnly(ctx context.Context, cfg SamplerConfig, tables []string) (map[string]int64, error) {
	maxes, err := CellCounts(ctx, cfg, tables)
	if maxes == nil {
		return nil, err
	}
	cells := make(map[string]int64, len(maxes))
	for t, m := range maxes {
		cells[t] = m.Cells
	}
	return cells, err
}

// Output past the bound (maxOutput plus outputPerTable per requested
// table) stops the run with an error that says so; the source never
// returns a silently partial result.
func TestTableCountsRunawayOutput(t *testing.T) {
	for _, c := range []struct {
		name string
		run  func(context.Context, SamplerConfig, []string) (map[string]int64, error)
	}{{"tablestats", distinctPartitionsByName}, {"tablehistograms", cellCountsOnly}} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			// A well-formed start, then no end.
			script := `printf '{"ks" : {"tables" : {"t" : {"number_of_partitions_estimate" : 1}, "u" : '; ` +
				`printf 'ks/t histograms\n'; yes '"padding",'`
			got, err := c.run(ctx, SamplerConfig{Command: []string{"sh", "-c", script}}, []string{"ks.t", "ks.u"})
			want := fmt.Sprintf("printed more than %d bytes", maxOutput+2*outputPerTable)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("got %v, %v; want an error saying %q", got, err, want)
			}
			if ctx.Err() != nil {
				t.Fatal("the run was not stopped at the bound but by the test's deadline")
			}
		})
	}
}

func BenchmarkParseDistinctPartitionsTenThousandTables(b *testing.B) {
	out := largeTablestats(b)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseDistinctPartitions(bytes.NewReader(out), nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseCellCountsTenThousandTables(b *testing.B) {
	out := largeTablehistograms(b)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseCellCounts(bytes.NewReader(out), nil); err != nil {
			b.Fatal(err)
		}
	}
}
