//go:build !linux

package main

// wipeInitialEnv: only Linux's /proc/PID/environ is handled.
func wipeInitialEnv(string) bool { return false }
