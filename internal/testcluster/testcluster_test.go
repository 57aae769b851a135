package testcluster

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
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
	root, err := RepoRoot()
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
