package collector

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestConfigValidate(t *testing.T) {
	yes, no := true, false
	ok := Config{Hosts: []string{"10.0.0.1"}}
	tests := []struct {
		name   string
		mutate func(c *Config)
		want   []string // every line of the error; nil for valid
	}{
		{"defaults are valid", func(c *Config) {}, nil},
		{"full valid config", func(c *Config) {
			c.Hosts = []string{"10.0.0.1:19042", "cass-2.example", "[::1]:9042"}
			c.Mode, c.Username, c.PasswordFile = ModeCluster, "partmon", "/run/secrets/pw"
			c.Datacenters = []string{"eu-west", "eu-north"}
			c.TLS = TLSConfig{Enabled: true, CAFile: "ca.pem", CertFile: "c.pem", KeyFile: "k.pem"}
			c.Sources = map[string]SourceConfig{"settings": {Schedule: "0 * * * *", Timeout: time.Minute}, "top_partitions": {Enabled: &no}}
		}, nil},
		{"no hosts", func(c *Config) { c.Hosts = nil }, []string{"collector.hosts: at least one host is required"}},
		{"bad hosts", func(c *Config) { c.Hosts = []string{" ", "10.0.0.1:99999", "a:b:c", "10.0.0.2:cql"} }, []string{
			"collector.hosts[0]: empty host",
			`collector.hosts[1]: "10.0.0.1:99999": port must be between 1 and 65535, got 99999`,
			`collector.hosts[2]: "a:b:c" is not a host or host:port`,
			`collector.hosts[3]: "10.0.0.2:cql": port "cql" is not a number`,
		}},
		{"mode", func(c *Config) { c.Mode = "Sidecar" }, []string{`collector.mode: must be "sidecar" or "cluster", got "Sidecar"`}},
		{"port", func(c *Config) { c.Port = 70000 }, []string{"collector.port: must be between 1 and 65535, got 70000"}},
		{"password twice", func(c *Config) { c.Username, c.Password, c.PasswordFile = "u", "p", "f" }, []string{
			"collector.password_file: set collector.password or collector.password_file, not both"}},
		{"password without user", func(c *Config) { c.Password = "p" }, []string{"collector.username: required when a password is set"}},
		{"half a key pair", func(c *Config) { c.TLS = TLSConfig{Enabled: true, CertFile: "c.pem"} }, []string{
			"collector.tls.cert_file: set without collector.tls.key_file: give both or neither"}},
		{"tls files but tls off", func(c *Config) { c.TLS = TLSConfig{CAFile: "ca.pem"} }, []string{
			"collector.tls: files or server_name are set but collector.tls.enabled is false"}},
		{"negative timeout", func(c *Config) { c.QueryTimeout = -time.Second }, []string{"collector.query_timeout: must not be negative, got -1s"}},
		{"backoff order", func(c *Config) { c.RetryBackoff, c.MaxRetryBackoff = time.Minute, time.Second }, []string{
			"collector.max_retry_backoff: must be at least collector.retry_backoff (1m0s), got 1s"}},
		{"page size", func(c *Config) { c.PageSize = 50000 }, []string{"collector.page_size: must be between 100 and 5000, got 50000"}},
		{"node concurrency", func(c *Config) { c.NodeConcurrency = -1 }, []string{"collector.node_concurrency: must be between 1 and 1024, got -1"}},
		{"datacenters in sidecar mode", func(c *Config) { c.Datacenters = []string{"dc1"} }, []string{
			`collector.datacenters: only in cluster mode (a sidecar reads its own node), got mode "sidecar"`}},
		{"empty datacenter", func(c *Config) { c.Mode, c.Datacenters = ModeCluster, []string{"dc1", " "} }, []string{
			"collector.datacenters[1]: empty DC name"}},
		{"nodetool runs", func(c *Config) {
			c.NodetoolSampler = NodetoolSamplerConfig{Command: []string{"nodetool"}, MaxConcurrentRuns: 100}
		}, []string{"collector.nodetool_sampler.max_concurrent_runs: 100 must be between 1 and 64"}},
		{"protocol", func(c *Config) { c.ProtoVersion = 5 }, []string{"collector.proto_version: must be 3 or 4 (0 negotiates), got 5"}},
		{"rest", func(c *Config) { c.ScyllaREST = ScyllaRESTConfig{Port: -1, Scheme: "ftp"} }, []string{
			"collector.scylla_rest.port: must be between 1 and 65535, got -1",
			`collector.scylla_rest.scheme: must be "http" or "https", got "ftp"`}},
		{"unknown source", func(c *Config) { c.Sources = map[string]SourceConfig{"max_partition_sizes": {}} }, []string{
			`collector.sources.max_partition_sizes: unknown source (known: ` + strings.Join(SourceNames(), ", ") + ")"}},
		{"bad cron", func(c *Config) {
			c.Sources = map[string]SourceConfig{"disk_usage": {Schedule: "every minute"}, "settings": {Schedule: "61 * * * *", Timeout: -time.Second}}
		}, []string{
			`collector.sources.disk_usage.schedule: "every minute": expected exactly 5 fields, found 2: [every minute]`,
			`collector.sources.settings.schedule: "61 * * * *": end of range (61) above maximum (59): 61`,
			"collector.sources.settings.timeout: must not be negative, got -1s",
		}},
		{"toppartitions timeout shorter than its sample", func(c *Config) {
			c.ScyllaREST.SampleDuration = time.Minute
			c.Sources = map[string]SourceConfig{"scylla_top_partitions": {Timeout: 30 * time.Second}}
		}, []string{"collector.sources.scylla_top_partitions.timeout: must be longer than collector.scylla_rest.sample_duration (1m0s), got 30s"}},
		{"nodetool enabled without a command", func(c *Config) { c.Sources = map[string]SourceConfig{"nodetool_sampler": {Enabled: &yes}} }, []string{
			"collector.sources.nodetool_sampler: enabled but collector.nodetool_sampler.command is empty"}},
		{"nodetool config checked", func(c *Config) {
			c.NodetoolSampler = NodetoolSamplerConfig{Command: []string{"nodetool"}, Capacity: 5000}
		}, []string{
			"collector.nodetool_sampler.capacity: 5000 must be between 2 and 1024"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.mutate(&c)
			err := c.Validate()
			if tc.want == nil {
				if err != nil {
					t.Fatalf("want valid, got %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want %q, got nil", tc.want)
			}
			if got := strings.Split(err.Error(), "\n"); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestConfigYAML(t *testing.T) {
	const doc = `
hosts: [10.0.0.1, 10.0.0.2]
mode: cluster
username: partmon
password_file: /run/secrets/cassandra
tls: {enabled: true, ca_file: /etc/ca.pem, server_name: cassandra.internal}
connect_timeout: 3s
query_timeout: 8s
page_size: 500
local_dc: dc1
proto_version: 4
sources:
  max_partition_size: {schedule: "@every 2m", timeout: 20s}
  top_partitions: {enabled: false}
nodetool_sampler: {command: [nodetool, -h, "{address}"], duration: 5s}
scylla_rest: {port: 10001, scheme: https}
`
	var c Config
	dec := yaml.NewDecoder(strings.NewReader(doc))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.QueryTimeout != 8*time.Second || c.Sources["max_partition_size"].Timeout != 20*time.Second ||
		*c.Sources["top_partitions"].Enabled || c.TLS.ServerName != "cassandra.internal" || c.ScyllaREST.Port != 10001 ||
		c.NodetoolSampler.Duration != 5*time.Second || !c.NodetoolSampler.TargetsEveryNode() {
		t.Errorf("decoded %+v", c)
	}
	eff := map[string]effectiveSource{}
	for _, r := range registry(c, nil) {
		eff[r.src.Name()] = c.WithDefaults().sourceSettings(r)
	}
	if e := eff["max_partition_size"]; e.schedule != "@every 2m" || e.timeout != 20*time.Second || !e.enabled {
		t.Errorf("max_partition_size %+v", e)
	}
	if eff["top_partitions"].enabled || !eff["nodetool_sampler"].enabled {
		t.Errorf("enabled flags %+v", eff)
	}
}

func TestPasswordFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(path, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := Config{Hosts: []string{"10.0.0.1"}, Username: "u", PasswordFile: path}
	if err := c.resolvePassword(); err != nil || c.password != "s3cret" {
		t.Fatalf("password %q err %v", c.password, err)
	}
	c.PasswordFile = filepath.Join(t.TempDir(), "missing")
	if _, err := New(c, nil); err == nil || !strings.HasPrefix(err.Error(), "reading collector.password_file: ") {
		t.Fatalf("got %v", err)
	}
}
