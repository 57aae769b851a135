package testcluster

import (
	"fmt"
	"path/filepath"
	"regexp"
)

var releasePattern = regexp.MustCompile(`^(\d+\.\d+)\.\d+$`)

// Version is the Cassandra release the cluster in Dir() runs, as `cluster up
// --version` recorded it in cluster.env (VERSION=4.1.10). Tests compare what
// partmon reads with what that release has; partmon itself probes instead.
func Version() (string, error) { return VersionAt(Dir()) }

// VersionAt is Version for the cluster whose state directory is dir.
func VersionAt(dir string) (string, error) {
	env, err := EnvAt(dir)
	if err != nil {
		return "", err
	}
	v := env["VERSION"]
	if !releasePattern.MatchString(v) {
		return "", fmt.Errorf("%s: VERSION=%q is not a release number such as 4.1.10 (start the cluster with deploy/local/cluster up)",
			filepath.Join(dir, "cluster.env"), v)
	}
	return v, nil
}

// Series is a release's major.minor ("4.1" for "4.1.10"), "" for anything else.
func Series(version string) string {
	m := releasePattern.FindStringSubmatch(version)
	if m == nil {
		return ""
	}
	return m[1]
}
