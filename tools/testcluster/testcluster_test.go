package testcluster

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/partmon/partmon/tools/testkit"
)

func TestHostsPrecedence(t *testing.T) {
	withEnv := t.TempDir()
	if err := os.WriteFile(filepath.Join(withEnv, "cluster.env"),
		[]byte("# comment\nVERSION=5.0.8\nHOSTS=127.0.0.4,127.0.0.5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		testHosts  string
		clusterDir string
		want       []string
	}{
		{name: "env variable wins", testHosts: " 10.0.0.1 ,10.0.0.2,", clusterDir: withEnv, want: []string{"10.0.0.1", "10.0.0.2"}},
		{name: "cluster.env next", clusterDir: withEnv, want: []string{"127.0.0.4", "127.0.0.5"}},
		{name: "default last", clusterDir: t.TempDir(), want: []string{"127.0.0.1", "127.0.0.2", "127.0.0.3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("PARTMON_TEST_HOSTS", tt.testHosts)
			t.Setenv("PARTMON_CLUSTER_DIR", tt.clusterDir)
			if got := Hosts(); !slices.Equal(got, tt.want) {
				t.Errorf("Hosts() = %v, want %v", got, tt.want)
			}
			if got := NodeIndex(tt.want[1]); got != 2 {
				t.Errorf("NodeIndex(%s) = %d, want 2", tt.want[1], got)
			}
		})
	}
}

func TestDirDefaultsToRepoCluster(t *testing.T) {
	t.Setenv("PARTMON_CLUSTER_DIR", "")
	root, err := testkit.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("RepoRoot %s has no go.mod: %v", root, err)
	}
	if got, want := Dir(), filepath.Join(root, ".cluster"); got != want {
		t.Errorf("Dir() = %s, want %s", got, want)
	}
}

func TestLoadTruthFind(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PARTMON_CLUSTER_DIR", dir)
	if _, err := LoadTruth(); err == nil {
		t.Fatal("LoadTruth without a file: want an error")
	}
	data := `{"problems":[{"kind":"hot_partition","keyspace":"pm_hot","key":"hot","nodes":["127.0.0.2"],"expected_share":0.8},
	{"kind":"tombstone_heavy","keyspace":"pm_tomb","nodes":["127.0.0.1"]}],"clean_keyspaces":["pm_clean"]}`
	if err := os.WriteFile(filepath.Join(dir, "truth.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	truth, err := LoadTruth()
	if err != nil {
		t.Fatal(err)
	}
	hot := truth.Find("hot_partition")
	if len(hot) != 1 || hot[0].Key != "hot" || hot[0].ExpectedShare != 0.8 || !slices.Equal(hot[0].Nodes, []string{"127.0.0.2"}) {
		t.Errorf("Find(hot_partition) = %+v", hot)
	}
	if got := truth.Find("ownership_skew"); len(got) != 0 {
		t.Errorf("Find(ownership_skew) = %+v, want none", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "truth.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadTruth(); err == nil {
		t.Error("LoadTruth of broken JSON: want an error")
	}
}

func TestParseState(t *testing.T) {
	tests := []struct {
		line      string
		wantState string
		wantPID   int
		wantErr   bool
	}{
		{line: "node1 127.0.0.4 running 1234\n", wantState: NodeRunning, wantPID: 1234},
		{line: "node2 127.0.0.5 paused 99", wantState: NodePaused, wantPID: 99},
		{line: "node3 127.0.0.6 stopped -", wantState: NodeStopped},
		{line: "node3 127.0.0.6 sleeping 12", wantErr: true},
		{line: "node3 127.0.0.6 running x", wantErr: true},
		{line: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			state, pid, err := parseState(tt.line)
			if (err != nil) != tt.wantErr {
				t.Fatalf("parseState(%q) error %v, want error %v", tt.line, err, tt.wantErr)
			}
			if state != tt.wantState || pid != tt.wantPID {
				t.Errorf("parseState(%q) = %q, %d; want %q, %d", tt.line, state, pid, tt.wantState, tt.wantPID)
			}
		})
	}
}

// The fault helpers refuse the shared dev cluster, by directory or by address.
func TestNewFaultsRefusesSharedCluster(t *testing.T) {
	root, err := testkit.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	writeEnv := func(hosts string) string {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "cluster.env"), []byte("HOSTS="+hosts+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	tests := []struct {
		name    string
		dir     string
		wantErr bool
	}{
		{name: "own cluster", dir: writeEnv("127.0.0.4,127.0.0.5,127.0.0.6")},
		{name: "shared directory", dir: filepath.Join(root, ".cluster"), wantErr: true},
		{name: "shared address", dir: writeEnv("127.0.0.3,127.0.0.4"), wantErr: true},
		{name: "no cluster", dir: t.TempDir(), wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := newFaults(tt.dir)
			if (err != nil) != tt.wantErr {
				t.Fatalf("newFaults(%s) = %+v, %v; want error %v", tt.dir, f, err, tt.wantErr)
			}
		})
	}
}

func TestVersionAndSeries(t *testing.T) {
	tests := []struct {
		name       string
		env        string // cluster.env content; "" writes none
		want       string
		wantSeries string
		wantErr    bool
	}{
		{name: "4.1", env: "VERSION=4.1.10\nHOSTS=127.0.0.21\n", want: "4.1.10", wantSeries: "4.1"},
		{name: "5.0", env: "VERSION=5.0.8\n", want: "5.0.8", wantSeries: "5.0"},
		{name: "series only", env: "VERSION=4.0\n", wantErr: true},
		{name: "missing", env: "HOSTS=127.0.0.1\n", wantErr: true},
		{name: "no cluster", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.env != "" {
				if err := os.WriteFile(filepath.Join(dir, "cluster.env"), []byte(tt.env), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := VersionAt(dir)
			if (err != nil) != tt.wantErr || got != tt.want {
				t.Fatalf("VersionAt = %q, %v; want %q, error %v", got, err, tt.want, tt.wantErr)
			}
			if s := Series(got); s != tt.wantSeries {
				t.Errorf("Series(%q) = %q, want %q", got, s, tt.wantSeries)
			}
		})
	}
}
