package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestPasswordFromEnvironment: PARTMON_COLLECTOR_PASSWORD overrides the
// file's password or password_file (as flags override the file), and is
// removed from the environment once read, so child processes never see it.
func TestPasswordFromEnvironment(t *testing.T) {
	existing := writeFile(t, "secret", "pw\n") // run checks that password_file exists
	tests := []struct {
		name         string
		file         string
		env          *string
		wantPassword string
		wantFile     bool
	}{
		{name: "env over password_file", file: "collector:\n  hosts: [10.0.0.1]\n  username: partmon\n  password_file: /run/secret\n",
			env: ptr("from-env"), wantPassword: "from-env"},
		{name: "env over password", file: "collector:\n  hosts: [10.0.0.1]\n  username: partmon\n  password: from-file\n",
			env: ptr("from-env"), wantPassword: "from-env"},
		{name: "no env keeps password_file", file: "collector:\n  hosts: [10.0.0.1]\n  username: partmon\n  password_file: " + existing + "\n",
			wantFile: true},
		{name: "empty env is ignored", file: "collector:\n  hosts: [10.0.0.1]\n  username: partmon\n  password: from-file\n",
			env: ptr(""), wantPassword: "from-file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != nil {
				t.Setenv(passwordEnv, *tt.env)
			} else {
				t.Setenv(passwordEnv, "") // registers the restore; then unset for the case
				if err := os.Unsetenv(passwordEnv); err != nil {
					t.Fatal(err)
				}
			}
			var d daemonFlags
			app := newTestApp(&d)
			if _, err := app.Parse([]string{"run", "--config.file", writeFile(t, "c.yml", tt.file)}); err != nil {
				t.Fatal(err)
			}
			cfg, err := d.config()
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Collector.Password != tt.wantPassword {
				t.Errorf("password = %q, want %q", cfg.Collector.Password, tt.wantPassword)
			}
			if got := cfg.Collector.PasswordFile != ""; got != tt.wantFile {
				t.Errorf("password_file kept = %v, want %v", got, tt.wantFile)
			}
			if v, ok := os.LookupEnv(passwordEnv); ok {
				t.Errorf("%s still in the environment (%q)", passwordEnv, v)
			}
		})
	}
}

func ptr(s string) *string { return &s }

// The password from the environment is gone from /proc/PID/environ once
// read, not only from Go's copy of the environment (os.Unsetenv alone left
// it there). Run in a child process: the test's own environment block is
// the one wiped.
func TestPasswordLeavesProcEnviron(t *testing.T) {
	const pw = "env-password-7f3a91c2"
	if os.Getenv("PARTMON_TEST_ENVIRON_CHILD") == "1" {
		var c common
		var cfg Config
		c.applyPasswordEnv(&cfg)
		environ, err := os.ReadFile("/proc/self/environ")
		if err != nil {
			t.Skip("no /proc/self/environ") // the parent fails on this
		}
		if cfg.Collector.Password != pw || strings.Contains(string(environ), pw) || os.Getenv(passwordEnv) != "" {
			t.Fatalf("password %q; /proc/self/environ holds it: %v", cfg.Collector.Password, strings.Contains(string(environ), pw))
		}
		return
	}
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("no /proc/self/environ on this system")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestPasswordLeavesProcEnviron$", "-test.v")
	cmd.Env = append(os.Environ(), "PARTMON_TEST_ENVIRON_CHILD=1", passwordEnv+"="+pw)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
