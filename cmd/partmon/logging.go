package main

import (
	"fmt"
	"io"
	"os"

	"github.com/robfig/cron/v3"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/partmon/partmon/internal/configerr"
	"github.com/partmon/partmon/internal/keys"
)

// newLogger builds the process logger: JSON for machines (the default for
// the daemon), console for people running one-shot commands.
func newLogger(level, format string) (*zap.Logger, error) {
	return newLoggerTo(level, format, os.Stderr)
}

// newLoggerTo is newLogger writing to w.
func newLoggerTo(level, format string, w io.Writer) (*zap.Logger, error) {
	var lvl zapcore.Level
	if err := lvl.UnmarshalText([]byte(level)); err != nil {
		return nil, configerr.Field("log.level", "%q: want debug, info, warn or error", level)
	}
	var enc zapcore.Encoder
	switch format {
	case "json":
		cfg := zap.NewProductionEncoderConfig()
		cfg.EncodeTime = zapcore.ISO8601TimeEncoder
		enc = zapcore.NewJSONEncoder(cfg)
	case "logfmt":
		enc = newLogfmtEncoder()
	case "console", "text":
		cfg := zap.NewDevelopmentEncoderConfig()
		cfg.EncodeTime = zapcore.ISO8601TimeEncoder
		enc = zapcore.NewConsoleEncoder(cfg)
	default:
		return nil, configerr.Field("log.format", "%q: want json, logfmt or console", format)
	}
	// Logs go to stderr so that `partmon report` and `partmon collect` keep stdout for their output.
	out := zapcore.Lock(zapcore.AddSync(w))
	return zap.New(zapcore.NewCore(enc, out, lvl), zap.ErrorOutput(out)), nil
}

// configAndLogger loads the configuration and builds its Keyer and its
// logger, which writes through the Keyer (a log line is scrubbed of every
// key the Keyer learned), printing any error for the user; ok is false when
// the command cannot start.
func configAndLogger(load func() (Config, error), stderr io.Writer) (Config, *zap.Logger, *keys.Keyer, bool) {
	cfg, err := load()
	if err != nil {
		fmt.Fprintf(stderr, "partmon: %v\n", err)
		return cfg, nil, nil, false
	}
	kc, created, err := cfg.Keys.Generate(cfg.State.File)
	if err != nil {
		fmt.Fprintf(stderr, "partmon: %v\n", err)
		return cfg, nil, nil, false
	}
	keyer, err := keys.Load(kc)
	if err != nil {
		fmt.Fprintf(stderr, "partmon: %v\n", err)
		return cfg, nil, nil, false
	}
	log, err := newLoggerTo(cfg.Log.Level, cfg.Log.Format, keyer.Writer(os.Stderr))
	if err != nil {
		fmt.Fprintf(stderr, "partmon: %v\n", err)
		return cfg, nil, nil, false
	}
	if note := keySecretNote(cfg, kc, created); note != "" {
		log.Info(note, zap.String("keys_mode", string(kc.Mode)), zap.String("secret_file", kc.SecretFile))
	}
	return cfg, log, keyer, true
}

// keySecretNote says where the secret of hidden keys comes from when the
// config names none (docs/operations.md "Keys and privacy").
func keySecretNote(cfg Config, resolved keys.Config, created bool) string {
	switch {
	case cfg.Keys.SecretFile != "" || !resolved.Hides():
		return ""
	case created:
		return "keys.secret_file not set: generated a secret (mode 0600) beside the state file; give every sidecar of a cluster the same file"
	case resolved.SecretFile != "":
		return "keys.secret_file not set: using the secret generated beside the state file"
	}
	return "keys.secret_file and state.file not set: keys are keyed by a random secret of this process; finding IDs change at each restart"
}

// newCronLogger adapts zap to cron's logger: cron's routine messages (every
// wake, run and schedule) go to Debug, its errors (recovered panics) to Error.
func newCronLogger(log *zap.Logger) cron.Logger {
	return cronLogger{log.Sugar()}
}

type cronLogger struct{ s *zap.SugaredLogger }

func (l cronLogger) Info(msg string, keysAndValues ...any) { l.s.Debugw(msg, keysAndValues...) }

func (l cronLogger) Error(err error, msg string, keysAndValues ...any) {
	l.s.Errorw(msg, append([]any{"error", err}, keysAndValues...)...)
}
