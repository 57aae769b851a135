package main

import (
	"errors"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
)

func TestCronLogger(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	l := newCronLogger(zap.New(core))
	l.Info("wake", "now", "x")
	l.Error(errors.New("panic: boom"), "panic", "job", "disk_usage")
	entries := logs.All()
	if len(entries) != 2 {
		t.Fatalf("%d entries", len(entries))
	}
	if entries[0].Level != zapcore.DebugLevel || entries[0].Message != "wake" || entries[0].ContextMap()["now"] != "x" {
		t.Errorf("info → %+v", entries[0])
	}
	if e := entries[1]; e.Level != zapcore.ErrorLevel || e.ContextMap()["error"] != "panic: boom" || e.ContextMap()["job"] != "disk_usage" {
		t.Errorf("error → %+v %v", e, e.ContextMap())
	}
}
