package main

import "os"

// passwordEnv carries the CQL password from the environment (a Kubernetes
// secret, a systemd credential), so it needs neither a file nor a flag: a
// flag would show in ps and /proc/PID/cmdline.
const passwordEnv = "PARTMON_COLLECTOR_PASSWORD"

// applyPasswordEnv puts the password from the environment over the config
// file's password or password_file, as flags override the file. The variable
// is then removed from partmon's environment, so commands it starts (the
// nodetool sampler) do not inherit it, and overwritten in the initial
// environment block, so /proc/PID/environ no longer shows it (Linux).
func (c *common) applyPasswordEnv(cfg *Config) {
	if pw, ok := os.LookupEnv(passwordEnv); ok {
		_ = os.Unsetenv(passwordEnv)
		wipeInitialEnv(passwordEnv)
		c.envPassword = &pw // for a reload (SIGHUP): the variable is gone
	}
	if c.envPassword == nil {
		return
	}
	pw := *c.envPassword
	if pw == "" {
		return
	}
	cfg.Collector.Password = pw
	cfg.Collector.PasswordFile = ""
}
