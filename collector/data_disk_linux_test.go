package collector

import (
	"context"
	"testing"
)

// TestDataDiskOnThisMachine reads a real directory with the real statfs:
// the usable space is the file system's, never 0 on a writable temp dir.
func TestDataDiskOnThisMachine(t *testing.T) {
	dir := t.TempDir()
	writeTree(t, dir, map[string]int{"a/b": 12345})
	out := newOutput("10.0.0.1")
	_, err := newDataDiskSource(DataDiskConfig{Directories: []string{dir}}).Collect(context.Background(), Input{Own: true}, out)
	if err != nil {
		t.Fatal(err)
	}
	if d := out.Node.DataDisk; d.UsedBytes != 12345 || d.UsableBytes <= 0 {
		t.Errorf("got %+v, want 12345 bytes used and some usable", d)
	}
}
