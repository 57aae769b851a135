package testcluster

import (
	"fmt"
	"io"
	"log"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/gocql/gocql"
)

// ReadOnlyKeyspaces are the keyspaces partmon reads (README, "Permissions"):
// a role with SELECT on these and nothing else is all it needs.
var ReadOnlyKeyspaces = []string{"system", "system_schema", "system_views", "system_virtual_schema"}

// CreateReadOnlyRole creates (or resets) a login role on the cluster whose
// cluster.env is env, with exactly the README's grants: SELECT on
// ReadOnlyKeyspaces, no superuser, no other permission. It connects as the
// default superuser through hosts, so the cluster must run with --auth.
func CreateReadOnlyRole(env map[string]string, name, password string, hosts ...string) error {
	if env["AUTH"] != "true" {
		return fmt.Errorf("cluster in %s runs without --auth: no roles to create", env["DIR"])
	}
	cfg := ClusterConfigFor(env, hosts...)
	cfg.Consistency = gocql.All // every replica of system_auth has the role before anyone logs in
	s, err := cfg.CreateSession()
	if err != nil {
		return fmt.Errorf("connecting as %s to %v: %w", SuperuserName, hosts, err)
	}
	defer s.Close()
	pw := strings.ReplaceAll(password, "'", "''")
	stmts := []string{
		// Dropped first: a role left by an earlier run must not keep any other grant.
		"DROP ROLE IF EXISTS " + name,
		fmt.Sprintf("CREATE ROLE %s WITH LOGIN = true AND SUPERUSER = false AND PASSWORD = '%s'", name, pw),
	}
	for _, ks := range ReadOnlyKeyspaces {
		stmts = append(stmts, fmt.Sprintf("GRANT SELECT ON KEYSPACE %s TO %s", ks, name))
	}
	for _, stmt := range stmts {
		if err := s.Query(stmt).Exec(); err != nil {
			return fmt.Errorf("%s: %w", strings.Replace(stmt, pw, "***", 1), err)
		}
	}
	// Nodes cache credentials (--auth-cache-refresh: refreshed every 2 s), so
	// a re-created role may log in with its new password only a moment later.
	for _, h := range hosts {
		if err := waitLogin(env, h, name, password, 60*time.Second); err != nil {
			return err
		}
	}
	return nil
}

// AlterPassword gives role a new password (ALTER ROLE, as the superuser)
// and waits until role can log in with it on every host.
func AlterPassword(env map[string]string, role, password string, hosts ...string) error {
	cfg := ClusterConfigFor(env, hosts...)
	cfg.Consistency = gocql.All
	s, err := cfg.CreateSession()
	if err != nil {
		return fmt.Errorf("connecting as %s to %v: %w", SuperuserName, hosts, err)
	}
	defer s.Close()
	pw := strings.ReplaceAll(password, "'", "''")
	// Cassandra 5.0 refuses a second password change within a minimum
	// interval of the last one (the role was created moments ago): wait
	// as long as the refusal says, a few times.
	for attempt := 0; ; attempt++ {
		err := s.Query(fmt.Sprintf("ALTER ROLE %s WITH PASSWORD = '%s'", role, pw)).Exec()
		if err == nil {
			break
		}
		wait, tooSoon := passwordChangeTooSoon(err.Error())
		if !tooSoon || attempt == 3 {
			return fmt.Errorf("ALTER ROLE %s WITH PASSWORD = '***': %s", role, strings.ReplaceAll(err.Error(), pw, "***"))
		}
		time.Sleep(wait)
	}
	for _, h := range hosts {
		if err := waitLogin(env, h, role, password, 60*time.Second); err != nil {
			return err
		}
	}
	return nil
}

// waitLogin retries logging in as user on host until it works or bound passes.
func waitLogin(env map[string]string, host, user, password string, bound time.Duration) error {
	deadline := time.Now().Add(bound)
	for {
		cfg := ClusterConfigFor(env, host)
		cfg.HostFilter = gocql.WhiteListHostFilter(host)
		cfg.Authenticator = gocql.PasswordAuthenticator{Username: user, Password: password}
		cfg.Logger = log.New(io.Discard, "", 0) // failed attempts are expected
		s, err := cfg.CreateSession()
		if err == nil {
			s.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("role %s cannot log in on %s after %s: %w", user, host, bound, err)
		}
		time.Sleep(time.Second)
	}
}

// Permissions lists what role may do, as `LIST ALL PERMISSIONS OF role`
// answers: one "PERMISSION on RESOURCE" line per grant, sorted by the server.
func Permissions(env map[string]string, role string, hosts ...string) ([]string, error) {
	cfg := ClusterConfigFor(env, hosts...)
	s, err := cfg.CreateSession()
	if err != nil {
		return nil, fmt.Errorf("connecting as %s to %v: %w", SuperuserName, hosts, err)
	}
	defer s.Close()
	iter := s.Query("LIST ALL PERMISSIONS OF " + role).Iter()
	var out []string
	var roleName, username, resource, permission string
	for iter.Scan(&roleName, &username, &resource, &permission) {
		out = append(out, permission+" on "+resource)
	}
	if err := iter.Close(); err != nil {
		return nil, fmt.Errorf("listing permissions of %s: %w", role, err)
	}
	return out, nil
}

var passwordIntervalRE = regexp.MustCompile(`can only be changed every (\d+)ms`)

// passwordChangeTooSoon reads Cassandra's refusal of a password change made
// too soon after the last one and returns how long to wait before retrying.
func passwordChangeTooSoon(msg string) (time.Duration, bool) {
	m := passwordIntervalRE.FindStringSubmatch(msg)
	if m == nil {
		return 0, false
	}
	ms, err := strconv.Atoi(m[1])
	if err != nil {
		return 0, false
	}
	return time.Duration(ms)*time.Millisecond + 500*time.Millisecond, true
}
