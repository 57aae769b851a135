package main

import (
	"bytes"
	"strings"
	"testing"
)

// Bad input to advise: one line saying what to check, exit 4 for input,
// 3 for a node nothing listens on; none of it reads a row.
func TestAdviseBadInput(t *testing.T) {
	closed := closedLoopback(t, "127.0.0.1")
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--table", "nodot"}, exitUsage, `--table "nodot": want keyspace.table`},
		{[]string{"--table", "ks.t", "--key", "((a, b)"}, exitUsage, `write it as CQL's PRIMARY KEY`},
		{[]string{"--table", "ks.t", "--key", "((a, bucket(ts, 0d)), ts)"}, exitUsage, `bucket width "0d" is not a positive duration`},
		{[]string{"--table", "ks.t", "--max-ring-share", "1.5"}, exitUsage, `--max-ring-share in (0, 1]`},
		{[]string{"--table", "ks.t", "--timeout", "20s"}, exitCollectFail, "cannot reach " + closed},
	} {
		var out, errs bytes.Buffer
		code := run(append([]string{"advise", "--hosts", closed}, c.args...), &out, &errs)
		if code != c.code || !strings.Contains(errs.String(), c.want) || strings.Count(strings.TrimSpace(errs.String()), "\n") > 0 || out.Len() > 0 {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q on one line", c.args, code, errs.String(), c.code, c.want)
		}
	}
}
