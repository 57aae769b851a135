//go:build integration

package reliability

import (
	"fmt"
	"net/http"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/collector"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/tools/testcluster"
)

// TestReadOnlyRole runs partmon as a role with nothing but the README's
// grants (SELECT on system, system_schema, system_views,
// system_virtual_schema) on a cluster with PasswordAuthenticator and
// CassandraAuthorizer: every source partmon runs succeeds (or is reported
// unsupported by the engine), so nothing partmon does needs more. The
// password comes from password_file in one partmon and from
// PARTMON_COLLECTOR_PASSWORD in another; a third one has a wrong password
// and must say so per node and keep serving. The password appears nowhere
// in partmon's logs (at debug level), /metrics, the API or the status page.
func TestReadOnlyRole(t *testing.T) {
	c := ownCluster(t)
	if !c.auth() {
		t.Skip("the cluster runs without --auth")
	}
	c.seedTraffic(t)
	creds := c.readOnlyRole(t, "partmon")

	perms, err := testcluster.Permissions(c.env, creds.user, c.hosts...)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, ks := range testcluster.ReadOnlyKeyspaces {
		want = append(want, "SELECT on <keyspace "+ks+">")
	}
	sort.Strings(perms)
	sort.Strings(want)
	if !slices.Equal(perms, want) {
		t.Fatalf("role %s has %v, want exactly %v", creds.user, perms, want)
	}
	// The role really is that narrow: a user table is out of its reach.
	if err := c.selectAs(creds, "SELECT k FROM partmon_reliability.kv LIMIT 1"); err == nil ||
		!strings.Contains(err.Error(), "has no SELECT permission") {
		t.Fatalf("role %s read a user table: %v", creds.user, err)
	}
	// Nor can it write, to a user table or to a system one.
	for _, stmt := range []string{
		"INSERT INTO partmon_reliability.kv (k, v) VALUES ('partmon-ro', 'x')",
		"DELETE FROM system.size_estimates WHERE keyspace_name = 'partmon_reliability'",
	} {
		if err := c.selectAs(creds, stmt); err == nil ||
			!strings.Contains(err.Error(), "has no MODIFY permission") {
			t.Errorf("role %s: %s: %v, want no MODIFY permission", creds.user, stmt, err)
		}
	}

	wrong := credentials{user: creds.user, password: "pm-wrong-" + randomHex(t, 8)}
	wrong.passwordFile = writeTemp(t, "wrong-password", wrong.password+"\n")
	runs := []struct {
		name string
		d    *daemon
	}{
		{"password_file", c.startPartmon(t, "partmon-role-file", options{creds: creds, logLevel: "debug"})},
		{"PARTMON_COLLECTOR_PASSWORD", c.startPartmon(t, "partmon-role-env", options{creds: creds, passwordInEnv: true, logLevel: "debug"})},
	}
	bad := c.startPartmon(t, "partmon-role-wrong-password", options{creds: wrong, logLevel: "debug"})

	for _, r := range runs {
		r.d.waitReady(60 * time.Second)
		var rep analyzer.Report
		// Until every source has run on every node, and past a connection
		// that timed out on a loaded box (partmon retries it): a missing
		// grant fails every attempt, so it still ends the wait with its error.
		r.d.waitFor(3*time.Minute, "every source to have run on every node without an error", func() (bool, string) {
			rep, err = r.d.report()
			if err != nil {
				return false, err.Error()
			}
			if ok, why := everySourceRan(rep, c.hosts); !ok {
				return false, why
			}
			for _, s := range rep.Sources {
				if s.State == model.StateError {
					return false, fmt.Sprintf("source %s on %q: %s", s.Source, s.Node, s.Error)
				}
			}
			return true, ""
		})
		var unsupported []string
		for _, s := range rep.Sources {
			switch s.State {
			case model.StateOK, model.StateDisabled:
			case model.StateUnsupported:
				if s.Node == c.hosts[0] {
					unsupported = append(unsupported, s.Source)
				}
			default:
				t.Errorf("%s: source %s on %q is %s: %s", r.name, s.Source, s.Node, s.State, s.Error)
			}
		}
		t.Logf("%s: every source ok as %s; unsupported on Cassandra %s: %s", r.name, creds.user, c.env["VERSION"], strings.Join(unsupported, ", "))
	}

	// The wrong password: every node refuses it, partmon says so per node and keeps serving.
	bad.waitFor(60*time.Second, "an authentication error logged for every node", func() (bool, string) {
		var missing []string
		for _, h := range c.hosts {
			if loggedError(bad.proc.Output(), h, "password are incorrect") == "" {
				missing = append(missing, h)
			}
		}
		return len(missing) == 0, "no authentication error yet for " + strings.Join(missing, ", ")
	})
	bad.assertNothingRead(c.hosts)

	for _, d := range append([]*daemon{bad}, runs[0].d, runs[1].d) {
		d.assertNoSecret(creds.password, wrong.password)
	}
}

// everySourceRan: every enabled source has a status for every node (cluster
// sources once).
func everySourceRan(rep analyzer.Report, hosts []string) (bool, string) {
	seen := map[string]bool{}
	for _, s := range rep.Sources {
		seen[s.Source+"@"+s.Node] = true
	}
	var missing []string
	for _, src := range []string{"topology", "schema"} {
		if !seen[src+"@"] {
			missing = append(missing, src)
		}
	}
	for _, src := range collector.SourceNames() {
		// The nodetool and data_disk sources run only with a configured
		// command or directories, which these daemons have not: they
		// report nothing.
		if src == "topology" || src == "schema" || slices.Contains(collector.SourcesOffUnlessConfigured(), src) {
			continue
		}
		for _, h := range hosts {
			if !seen[src+"@"+h] {
				missing = append(missing, src+"@"+h)
			}
		}
	}
	return len(missing) == 0, "not yet run: " + strings.Join(missing, ", ")
}

// selectAs runs one statement as cr on the first node.
func (c *cluster) selectAs(cr credentials, stmt string) error {
	cfg := testcluster.ClusterConfigFor(c.env, c.hosts[0])
	cfg.HostFilter = gocql.WhiteListHostFilter(c.hosts[0])
	cfg.Authenticator = gocql.PasswordAuthenticator{Username: cr.user, Password: cr.password}
	s, err := cfg.CreateSession()
	if err != nil {
		return fmt.Errorf("connecting as %s: %w", cr.user, err)
	}
	defer s.Close()
	return s.Query(stmt).Exec()
}

// assertNoSecret fails if any secret appears in partmon's output, in what it
// serves, or on its command line.
func (d *daemon) assertNoSecret(secrets ...string) {
	d.t.Helper()
	places := map[string]string{"logs": d.proc.Output()}
	for _, path := range []string{"/metrics", "/api/v1/report", "/api/v1/findings", "/", "/readyz", "/readyz/cycle", "/healthz"} {
		body, _, err := d.get(path)
		if err != nil {
			d.t.Fatalf("GET %s: %v", path, err)
		}
		places[path] = string(body)
	}
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", d.proc.Cmd.Process.Pid)); err == nil {
		places["command line"] = string(cmdline)
	}
	for where, text := range places {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				d.t.Errorf("%s: the password appears in %s", d.proc.Name, where)
			}
		}
	}
}

func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	path := t.TempDir() + "/" + name
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// loggedError is the first "source failed" error partmon logged for node
// (as its node field, or in a cluster source's "connecting to NODE")
// containing want; "" if there is none.
func loggedError(output, node, want string) string {
	for _, rec := range logLines(output) {
		msg, _ := rec["msg"].(string)
		errText, _ := rec["error"].(string)
		if msg != "source failed" || !strings.Contains(errText, want) {
			continue
		}
		if rec["node"] == node || strings.Contains(errText, "connecting to "+node+":") {
			return errText
		}
	}
	return ""
}

// assertNothingRead: partmon keeps serving (/healthz, /readyz, /metrics and
// the status page answer: a probe never depends on the database),
// /readyz/cycle says no cycle has finished, partmon says it is not up, and
// every collector series of every node reads 0.
func (d *daemon) assertNothingRead(hosts []string) {
	d.t.Helper()
	for _, path := range []string{"/healthz", "/readyz", "/metrics", "/"} {
		if _, code, err := d.get(path); err != nil || code != http.StatusOK {
			d.t.Errorf("%s: GET %s: %d %v", d.proc.Name, path, code, err)
		}
	}
	if _, code, err := d.get("/readyz/cycle"); err != nil || code != http.StatusServiceUnavailable {
		d.t.Errorf("%s: GET /readyz/cycle with nothing read: %d %v, want 503", d.proc.Name, code, err)
	}
	fams, err := d.metrics()
	if err != nil {
		d.t.Fatal(err)
	}
	if up := single(fams, "partmon_up"); up != 0 {
		d.t.Errorf("%s: partmon_up = %v with no node readable", d.proc.Name, up)
	}
	success := byNode(fams, "partmon_collector_success")
	for _, h := range hosts {
		if len(success[h]) == 0 {
			d.t.Errorf("%s: no partmon_collector_success series for %s", d.proc.Name, h)
		}
		for src, v := range success[h] {
			if v != 0 {
				d.t.Errorf("%s: partmon_collector_success{collector=%q,node=%q} = %v", d.proc.Name, src, h, v)
			}
		}
	}
}
