package main

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"

	"go.uber.org/zap"
	"go.uber.org/zap/buffer"
	"go.uber.org/zap/zapcore"
)

// logfmtEncoder writes logfmt (key=value pairs, the format Prometheus and
// its exporters log with --log.format=logfmt); zap has none. It lets zap's
// JSON encoder do the typing of every field, then rewrites that one-line
// object pair by pair in its order: a nested object or list becomes its
// JSON text, quoted.
type logfmtEncoder struct{ zapcore.Encoder }

var logfmtBuffers = buffer.NewPool()

func newLogfmtEncoder() zapcore.Encoder {
	cfg := zap.NewProductionEncoderConfig()
	cfg.TimeKey, cfg.LevelKey, cfg.MessageKey, cfg.NameKey, cfg.CallerKey = "time", "level", "msg", "logger", zapcore.OmitKey
	cfg.EncodeTime = zapcore.RFC3339NanoTimeEncoder
	cfg.EncodeDuration = zapcore.StringDurationEncoder
	cfg.LineEnding = "\n"
	return logfmtEncoder{zapcore.NewJSONEncoder(cfg)}
}

func (e logfmtEncoder) Clone() zapcore.Encoder { return logfmtEncoder{e.Encoder.Clone()} }

func (e logfmtEncoder) EncodeEntry(ent zapcore.Entry, fields []zapcore.Field) (*buffer.Buffer, error) {
	js, err := e.Encoder.EncodeEntry(ent, fields)
	if err != nil {
		return nil, err
	}
	defer js.Free()
	out := logfmtBuffers.Get()
	dec := json.NewDecoder(bytes.NewReader(js.Bytes()))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	var pairs []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		pair := logfmtKey(key) + "=" + logfmtValue(raw)
		if key == "time" { // first, as Prometheus' logs have it
			pairs = append([]string{pair}, pairs...)
		} else {
			pairs = append(pairs, pair)
		}
	}
	out.AppendString(strings.Join(pairs, " "))
	out.AppendByte('\n')
	return out, nil
}

// logfmtValue is a JSON value in logfmt: a string unquoted when it can be,
// a number or boolean as it is, anything else as quoted JSON.
func logfmtValue(raw json.RawMessage) string {
	text := string(raw)
	if strings.HasPrefix(text, `"`) {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			text = s
		}
	}
	if text == "" || strings.IndexFunc(text, needsQuote) >= 0 {
		return strconv.Quote(text)
	}
	return text
}

// logfmtKey drops what a key cannot hold (space, =, ").
func logfmtKey(k string) string {
	k = strings.Map(func(r rune) rune {
		if needsQuote(r) {
			return '_'
		}
		return r
	}, k)
	if k == "" {
		return "_"
	}
	return k
}

func needsQuote(r rune) bool {
	return r <= ' ' || r == '=' || r == '"' || r == unicode.ReplacementChar || !unicode.IsPrint(r)
}
