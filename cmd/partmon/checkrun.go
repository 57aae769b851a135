package main

import (
	"fmt"
	"net"
	"os"
	"strings"

	"go.uber.org/zap"

	"github.com/partmon/partmon/internal/configerr"
)

// The checks below refuse at load (run and check-config alike, exit 4)
// what run would otherwise find only when it listens: a listen address it
// cannot bind. The files the node-local sources open (the logs source's
// file, the data_disk source's directories) check-config refuses when
// absent, while run starts with a warning: on a new pod they appear only
// once Cassandra has started beside partmon, and the source retries.

// listenAddressError says why run could not listen on a, from its text
// alone: it holds on any host (check-config --syntax-only too). The caller
// names the key.
func listenAddressError(a string) error {
	host, port, err := net.SplitHostPort(a)
	if err != nil {
		return fmt.Errorf("%q is not host:port (e.g. :9808 or 127.0.0.1:9808)", a)
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("%q: port %q is not a port number (e.g. :9808)", a, port)
	}
	if dottedQuad(host) && net.ParseIP(host) == nil {
		return fmt.Errorf("%q: %s is not an IP address (four numbers of 0-255)", a, host)
	}
	return nil
}

// dottedQuad is true for a host of digits and dots only: meant as an IPv4
// address, never a name, so it must parse as one.
func dottedQuad(host string) bool {
	return host != "" && strings.Trim(host, "0123456789.") == "" && strings.Contains(host, ".")
}

// listenHostErrors are the listen addresses whose host name does not
// resolve here: run could not bind them. Host-dependent, so not under
// --syntax-only.
func (c *Config) listenHostErrors() []error {
	var errs []error
	for i, a := range c.Web.ListenAddresses {
		host, _, err := net.SplitHostPort(a)
		if err != nil || host == "" || net.ParseIP(strings.Trim(host, "[]")) != nil || dottedQuad(host) {
			continue // refused by listenAddressError, or nothing to resolve
		}
		if _, err := lookupHost(host); err != nil {
			errs = append(errs, configerr.Field(fmt.Sprintf("web.listen_addresses[%d]", i), "%q: %s does not resolve on this host: %v", a, host, err))
		}
	}
	return errs
}

// lookupHost resolves a listen host; replaced in tests.
var lookupHost = net.LookupHost

// sourceFileErrors are the files the node-local sources open, checked as
// the sources will read them: the logs source's file, the data_disk
// source's directories.
func (c *Config) sourceFileErrors() []error {
	var errs []error
	if f := c.Collector.Logs.File; f != "" {
		if err := statFile(f); err != nil {
			errs = append(errs, configerr.Field("collector.logs.file", "%v (the node's Cassandra system.log, read by the logs source)", err))
		}
	}
	for i, d := range c.Collector.DataDisk.Directories {
		if err := statDir(d); err != nil {
			errs = append(errs, configerr.Field(fmt.Sprintf("collector.data_disk.directories[%d]", i), "%v (the node's data_file_directories)", err))
		}
	}
	return errs
}

// statDir checks that dir is a directory; replaced like statFile.
var statDir = func(dir string) error {
	st, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a directory", dir)
	}
	return nil
}

// checkedConfig is the configuration check-config checks: run's, or with
// syntaxOnly its text and values alone (no file opened, no name resolved).
func (d *daemonFlags) checkedConfig(syntaxOnly bool) (Config, error) {
	if !syntaxOnly {
		d.extra, d.scope = d.applyFlags, filesCheck
		return d.load()
	}
	d.extra, d.scope = d.applyFlags, filesNone
	return d.load()
}

func syntaxOnlyNote(syntaxOnly bool) string {
	if !syntaxOnly {
		return ""
	}
	return "; syntax only: the files it names were not opened"
}

// warnMissingSourceFiles logs, at run's start, each file a node-local
// source will open that is not there (yet): check-config refuses them.
func warnMissingSourceFiles(cfg Config, log *zap.Logger) {
	for _, err := range cfg.sourceFileErrors() {
		log.Warn("a node-local source's file is not there; the source fails until it is", zap.Error(err))
	}
}
