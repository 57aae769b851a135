//go:build integration

package e2e

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gocql/gocql"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/tools/promtest"
	"github.com/partmon/partmon/tools/testcluster"
	"github.com/partmon/partmon/tools/testkit"
)

// plantedKey is the partition key TestKeysNeverLeave plants: what a
// security review would look for.
const plantedKey = "alice.secret@example.org"

// privacyKeyspace is the test's own keyspace on the shared cluster.
const privacyKeyspace = "pm_privacy"

// TestKeysNeverLeave (docs/operations.md "Keys and privacy"): a key planted
// as a tombstone-heavy partition, named by Cassandra's tombstone warnings
// (system_views.system_logs, 5.0), read by partmon in plain, hashed and
// omitted mode through every output: /metrics, every /api/v1/ endpoint, the
// status page as Chromium renders it, Alertmanager's alerts, partmon's log,
// the state file and `partmon report` as text, markdown and JSON. Hidden
// modes: not one occurrence of the key in any encoding; plain: the same
// search finds it. Then three sidecars in hashed mode push one alert for
// the problem, with the hashed key.
func TestKeysNeverLeave(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	version, err := testcluster.Version()
	if err != nil {
		t.Fatal(err)
	}
	if testcluster.Series(version) != "5.0" {
		t.Skipf("the cluster at %s runs Cassandra %s: the planted key is named through system_views.system_logs, 5.0 only", testcluster.Dir(), version)
	}
	hosts := testcluster.Hosts()
	if len(hosts) < 3 {
		t.Fatalf("want a 3-node cluster, PARTMON_TEST_HOSTS / cluster.env name %v", hosts)
	}
	bin, err := partmonBinary(ctx)
	if err != nil {
		t.Fatal(err)
	}
	plantTombstonedKey(ctx, t, testcluster.Session(t, hosts[0]))
	secret := filepath.Join(t.TempDir(), "key-secret")
	if err := os.WriteFile(secret, []byte("e2e-secret-0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	keyHash := exec.CommandContext(ctx, bin, "key-hash", "--secret-file", secret)
	keyHash.Stdin = strings.NewReader(plantedKey + "\n")
	out, err := keyHash.Output()
	if err != nil {
		t.Fatalf("partmon key-hash: %v", err)
	}
	hashed := strings.TrimSpace(string(out))
	shows := map[string]string{"plain": plantedKey, "hashed": hashed, "omitted": "(key omitted)"}
	ids := map[string]string{}
	for _, mode := range []string{"plain", "hashed", "omitted"} {
		t.Run(mode, func(t *testing.T) {
			outputs, f := everyOutput(ctx, t, bin, privacyConfig(t, hosts, mode, secret), shows[mode])
			checkKeyOccurrences(t, mode, outputs)
			ids[mode] = f.ID
			// One finding for the key's problem: the evidence of every
			// node and cycle folded into it, in every mode.
			if n := plantedFindings(t, outputs["GET /api/v1/findings"]); n != 1 {
				t.Errorf("%s mode: %d tombstone_heavy findings in the API, want the one of %s.carts", mode, n, privacyKeyspace)
			}
		})
	}
	if ids["hashed"] == "" || ids["hashed"] == ids["plain"] || ids["omitted"] == ids["plain"] {
		t.Errorf("finding IDs %v: want the hidden modes' IDs digested, unlike plain's", ids)
	}
	t.Run("sidecars", func(t *testing.T) { sidecarsFoldHashed(t, bin, hosts, secret, hashed, ids["hashed"]) })
}

// plantTombstonedKey writes 3,000 rows of the planted key and deletes 2,990,
// then reads it at ALL: every replica scans 2,990 tombstones, over
// tombstone_warn_threshold (1,000), and logs the warning with the key.
func plantTombstonedKey(ctx context.Context, t *testing.T, s *gocql.Session) {
	t.Helper()
	for _, stmt := range []string{
		"CREATE KEYSPACE IF NOT EXISTS " + privacyKeyspace + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 3}",
		"CREATE TABLE IF NOT EXISTS " + privacyKeyspace + ".carts (id text, item int, payload text, PRIMARY KEY ((id), item))",
	} {
		if err := s.Query(stmt).WithContext(ctx).Exec(); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	for _, stmt := range []string{
		"INSERT INTO " + privacyKeyspace + ".carts (id, item, payload) VALUES (?, ?, 'x')",
		"DELETE FROM " + privacyKeyspace + ".carts WHERE id = ? AND item = ?",
	} {
		upTo := 3000
		if strings.HasPrefix(stmt, "DELETE") {
			upTo = 2990
		}
		for b := 0; b*100 < upTo; b++ {
			batch := s.NewBatch(gocql.UnloggedBatch).WithContext(ctx)
			for i := b * 100; i < min(upTo, (b+1)*100); i++ {
				batch.Query(stmt, plantedKey, i)
			}
			if err := s.ExecuteBatch(batch); err != nil {
				t.Fatalf("planting %s.carts: %v", privacyKeyspace, err)
			}
		}
	}
	iter := s.Query("SELECT item FROM "+privacyKeyspace+".carts WHERE id = ?", plantedKey).
		Consistency(gocql.All).PageSize(5000).WithContext(ctx).Iter()
	var item, live int
	for iter.Scan(&item) {
		live++
	}
	if err := iter.Close(); err != nil || live != 10 {
		t.Fatalf("reading the planted key at ALL: %d live rows, %v; want 10", live, err)
	}
}

// privacyConfig is a cluster-mode config with the keys section of mode.
func privacyConfig(t *testing.T, hosts []string, mode, secret string) string {
	cfg := fmt.Sprintf(`collector:
  hosts: [%s]
analysis:
  schedule: "@every 10s"
alertmanager:
  resend_interval: 5s
state:
  file: %s
log:
  level: debug
  format: json
keys:
  mode: %s
`, strings.Join(hosts, ", "), filepath.Join(t.TempDir(), "state.json"), mode)
	if mode != "plain" {
		cfg += "  secret_file: " + secret + "\n"
	}
	path := filepath.Join(t.TempDir(), "partmon.yml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// nullAlertmanager routes every alert to a receiver that sends nothing.
const nullAlertmanager = "route:\n  receiver: none\nreceivers:\n  - name: none\n"

// everyOutput runs the daemon with cfg until it names the planted key's
// problem as shown (in the API and in a pushed alert), and returns every
// output's bytes by name.
func everyOutput(ctx context.Context, t *testing.T, bin, cfg, shown string) (map[string][]byte, finding.Finding) {
	opts := promtest.Options{LogDir: filepath.Join(testkit.Root(t), "test-artifacts", "e2e-privacy")}
	am := promtest.StartAlertmanager(t, nullAlertmanager, opts)
	addr := testkit.FreeAddr(t)
	base := "http://" + addr
	p := promtest.Start(t, "partmon", opts, bin, "run", "--config.file", cfg, "--web.listen-address", addr, "--alertmanager.url", am.URL)
	var finding finding.Finding
	promtest.WaitFor(t, 3*time.Minute, "a tombstone_heavy finding on "+privacyKeyspace+".carts naming "+shown, func() bool {
		if exited, err := p.Exited(); exited {
			t.Fatalf("partmon exited: %v\n%s", err, p.Output())
		}
		f, ok := plantedFinding(base)
		finding = f
		return ok && f.PartitionKey == shown
	})
	promtest.WaitFor(t, time.Minute, "the pushed alert of "+privacyKeyspace+".carts", func() bool {
		alerts, err := am.Alerts()
		return err == nil && len(matching(alerts, map[string]string{"keyspace": privacyKeyspace})) > 0
	})
	out := map[string][]byte{}
	for _, path := range []string{"/metrics", "/api/v1/findings", "/api/v1/report", "/api/v1/guardrails", "/api/v1/keys/" + privacyKeyspace + "/carts",
		"/", "/healthz", "/readyz", "/readyz/cycle"} {
		out["GET "+path] = get(t, base+path)
	}
	out["alertmanager /api/v2/alerts"] = get(t, am.URL+"/api/v2/alerts")
	// Chromium and the one-shot reports take the longest: side by side.
	chromium := startDumpDOM(t, opts, base+"/")
	dom := make(chan []byte, 1)
	go func() { dom <- waitDOM(t, chromium) }()
	for format, b := range oneShotReports(ctx, t, bin, cfg) {
		out["partmon report --format "+format] = b
	}
	out["chromium --dump-dom /"] = <-dom
	data, err := os.ReadFile(stateFileOf(t, cfg))
	if err != nil {
		t.Fatalf("state file: %v", err)
	}
	out["state file"] = data
	out["partmon log"] = []byte(p.Output())
	return out, finding
}

// plantedFinding is the tombstone_heavy finding of the planted table in the
// daemon's API.
func plantedFinding(base string) (finding.Finding, bool) {
	resp, err := fetchFindings(base)
	if err != nil {
		return finding.Finding{}, false
	}
	for _, f := range resp.Findings {
		if f.Kind == analyzer.KindTombstoneHeavy && f.Keyspace == privacyKeyspace && f.Table == "carts" {
			return f, true
		}
	}
	return finding.Finding{}, false
}

// plantedFindings counts the tombstone_heavy findings of the planted table
// in a /api/v1/findings body.
func plantedFindings(t *testing.T, body []byte) int {
	var resp findingsResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		t.Fatalf("decoding /api/v1/findings: %v", err)
	}
	n := 0
	for _, f := range resp.Findings {
		if f.Kind == analyzer.KindTombstoneHeavy && f.Keyspace == privacyKeyspace && f.Table == "carts" {
			n++
		}
	}
	return n
}

func get(t *testing.T, u string) []byte {
	t.Helper()
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	return b
}

// startDumpDOM starts Debian's headless Chromium printing the status page's
// DOM as it renders it.
func startDumpDOM(t *testing.T, opts promtest.Options, u string) *promtest.Process {
	bin := promtest.LookPath(t, "Debian package chromium", "chromium")
	return promtest.Start(t, "chromium", opts, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
		"--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir="+t.TempDir(), "--dump-dom", u)
}

// waitDOM is the DOM Chromium printed; it reports with t.Errorf, as it runs
// beside the reports, off the test's goroutine.
func waitDOM(t *testing.T, p *promtest.Process) []byte {
	if err := p.Wait(150 * time.Second); err != nil {
		t.Errorf("chromium: %v\n%s", err, p.Output())
	}
	dom := p.Output()
	if !strings.Contains(dom, "</html>") || !strings.Contains(dom, privacyKeyspace) {
		t.Errorf("chromium's DOM is not the status page naming %s:\n%s", privacyKeyspace, dom)
	}
	return []byte(dom)
}

func stateFileOf(t *testing.T, cfg string) string {
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f, ok := strings.CutPrefix(strings.TrimSpace(line), "file: "); ok {
			return f
		}
	}
	t.Fatal("no state file in the config")
	return ""
}

// oneShotReports runs `partmon report` in each format at once.
func oneShotReports(ctx context.Context, t *testing.T, bin, cfg string) map[string][]byte {
	out := map[string][]byte{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, format := range []string{"text", "markdown", "json"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var stdout, stderr bytes.Buffer
			cmd := exec.CommandContext(ctx, bin, "report", "--config.file", cfg, "--format", format, "--min-severity", "info")
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			mu.Lock()
			defer mu.Unlock()
			if code := cmd.ProcessState.ExitCode(); err != nil && code != 1 && code != 2 {
				t.Errorf("partmon report --format %s: %v\n%s", format, err, stderr.String())
			}
			if !strings.Contains(stdout.String(), privacyKeyspace) {
				t.Errorf("partmon report --format %s does not name %s:\n%s", format, privacyKeyspace, stdout.String())
			}
			out[format] = append(stdout.Bytes(), stderr.Bytes()...)
		}()
	}
	wg.Wait()
	return out
}

// keyEncodings are the planted key as each output could carry it.
func keyEncodings() map[string]string {
	b, _ := json.Marshal(plantedKey)
	return map[string]string{
		"plain":       plantedKey,
		"JSON":        string(b[1 : len(b)-1]),
		"URL-escaped": url.QueryEscape(plantedKey),
		"path-escape": url.PathEscape(plantedKey),
		"hex":         hex.EncodeToString([]byte(plantedKey)),
		"HEX":         strings.ToUpper(hex.EncodeToString([]byte(plantedKey))),
	}
}

// mustName are the outputs that name the key in plain mode: the search
// finds it there, so it can fail.
var mustName = []string{"GET /api/v1/findings", "GET /api/v1/report", "GET /", "chromium --dump-dom /",
	"alertmanager /api/v2/alerts", "state file", "partmon report --format text", "partmon report --format markdown",
	"partmon report --format json", "GET /api/v1/keys/" + privacyKeyspace + "/carts"}

func checkKeyOccurrences(t *testing.T, mode string, outputs map[string][]byte) {
	names := make([]string, 0, len(outputs))
	for name := range outputs {
		names = append(names, name)
	}
	sort.Strings(names)
	total := 0
	for _, name := range names {
		n := 0
		for enc, form := range keyEncodings() {
			if c := bytes.Count(outputs[name], []byte(form)); c > 0 && mode != "plain" {
				t.Errorf("%s mode: %s holds the planted key %d times (%s)", mode, name, c, enc)
			} else {
				n += c
			}
		}
		total += n
		t.Logf("%s mode: %s: %d bytes, %d occurrences of the key", mode, name, len(outputs[name]), n)
	}
	if mode != "plain" {
		return
	}
	for _, name := range mustName {
		if !bytes.Contains(outputs[name], []byte(plantedKey)) {
			t.Errorf("plain mode: %s does not name the planted key: the search cannot be trusted", name)
		}
	}
	if total == 0 {
		t.Error("plain mode: the planted key is nowhere")
	}
}

// sidecarsFoldHashed: one sidecar per node, hashed, one Alertmanager: each
// names the problem with the same hashed key and ID as the cluster-mode
// partmon before, and it is one alert, carrying the hashed key.
func sidecarsFoldHashed(t *testing.T, bin string, hosts []string, secret, hashed, id string) {
	opts := promtest.Options{LogDir: filepath.Join(testkit.Root(t), "test-artifacts", "e2e-privacy-sidecars")}
	am := promtest.StartAlertmanager(t, nullAlertmanager, opts)
	var bases []string
	var procs []*promtest.Process
	for i, h := range hosts[:3] {
		cfg := privacyConfig(t, []string{h}, "hashed", secret)
		addr := testkit.FreeAddr(t)
		bases = append(bases, "http://"+addr)
		procs = append(procs, promtest.Start(t, fmt.Sprintf("partmon-sidecar-%d", i+1), opts, bin, "run", "--config.file", cfg, "--mode", "sidecar",
			"--web.listen-address", addr, "--alertmanager.url", am.URL))
	}
	promtest.WaitFor(t, 3*time.Minute, "every sidecar's finding on "+privacyKeyspace+".carts", func() bool {
		for _, p := range procs {
			if exited, err := p.Exited(); exited {
				t.Fatalf("%s exited: %v\n%s", p.Name, err, p.Output())
			}
		}
		for _, b := range bases {
			if f, ok := plantedFinding(b); !ok || f.PartitionKey != hashed {
				return false
			}
		}
		return true
	})
	// The same ID in every process sharing the secret: the cluster-mode run's.
	for i, b := range bases {
		if f, _ := plantedFinding(b); f.ID != id {
			t.Errorf("sidecar %d: finding ID %q, want the cluster-mode run's %q", i+1, f.ID, id)
		}
	}
	var got []promtest.Alert
	promtest.WaitFor(t, time.Minute, "the pushed alert", func() bool {
		alerts, err := am.Alerts()
		got = matching(alerts, map[string]string{"keyspace": privacyKeyspace})
		return err == nil && len(got) > 0
	})
	// Every sidecar that pushed pushes at least once more (its own count of
	// accepted alerts rises; the pusher resends every 5 s here), so that the
	// sidecars' pushes of the same problem are held below, not a fixed sleep.
	pushed := make([]float64, len(bases))
	for i, b := range bases {
		pushed[i] = scrapeCounter(t, b, "partmon_alerts_pushed_total")
	}
	promtest.WaitFor(t, time.Minute, "one more push from every sidecar that pushed", func() bool {
		for i, b := range bases {
			if pushed[i] > 0 && scrapeCounter(t, b, "partmon_alerts_pushed_total") <= pushed[i] {
				return false
			}
		}
		return true
	})
	alerts, err := am.Alerts()
	if err != nil {
		t.Fatal(err)
	}
	got = matching(alerts, map[string]string{"keyspace": privacyKeyspace})
	if len(got) != 1 || got[0].Annotations["partition_key"] != hashed {
		t.Fatalf("three sidecars: %d alerts about %s (%s), want one with partition_key %q", len(got), privacyKeyspace, describe(got), hashed)
	}
	raw := get(t, am.URL+"/api/v2/alerts")
	if bytes.Contains(raw, []byte(plantedKey)) {
		t.Errorf("Alertmanager holds the planted key")
	}
}
