package format

import (
	"math"
	"testing"
	"time"
)

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

func TestFormatters(t *testing.T) {
	tests := []struct {
		name, got, want string
	}{
		{"bytes zero", Bytes(0), "0 B"},
		{"bytes below a KiB", Bytes(1023), "1023 B"},
		{"bytes one decimal below 10", Bytes(1536), "1.5 KiB"},
		{"bytes whole from 10", Bytes(480 * mib), "480 MiB"},
		{"bytes rounded", Bytes(16.4 * mib), "16 MiB"},
		{"bytes GiB", Bytes(1.25 * gib), "1.2 GiB"},
		{"bytes negative", Bytes(-2 * mib), "-2.0 MiB"},
		{"bytes past PiB stay PiB", Bytes(2048 * 1024 * 1024 * gib), "2048 PiB"},
		{"bytes cell zero", BytesCell(0), "-"},
		{"bytes cell negative", BytesCell(-1), "-"},
		{"bytes cell NaN", BytesCell(math.NaN()), "-"},
		{"bytes cell bytes", BytesCell(512), "512 B"},
		{"bytes cell KiB", BytesCell(2 * kib), "2.0 KiB"},
		{"bytes cell MiB", BytesCell(200 * mib), "200.0 MiB"},
		{"bytes cell GiB", BytesCell(3 * gib), "3.0 GiB"},
		{"seconds", Seconds(45), "45 s"},
		{"seconds minutes", Seconds(720), "12 min"},
		{"seconds hours", Seconds(5.2 * 3600), "5.2 h"},
		{"seconds days", Seconds(3.4 * 86400), "3.4 d"},
		{"words seconds", SecondsWords(45), "45 seconds"},
		{"words minutes", SecondsWords(600), "10 minutes"},
		{"words hours", SecondsWords(86400), "24.0 hours"},
		{"words days", SecondsWords(3 * 86400), "3.0 days"},
		{"latency ms", Latency(250 * time.Millisecond), "250ms"},
		{"latency rounded", Latency(1500*time.Millisecond + 300*time.Microsecond), "1.5s"},
		{"count", Count(1234567), "1,234,567"},
		{"count small", Count(999), "999"},
		{"count negative", Count(-1000), "-1,000"},
		{"count rounds", Count(1499.6), "1,500"},
		{"percent whole", Percent(0.62), "62 %"},
		{"percent decimal", Percent(0.045), "4.5 %"},
		{"percent cell", PercentCell(0.75), "75.0%"},
		{"percent cell third", PercentCell(1.0 / 3), "33.3%"},
		{"percent cell zero", PercentCell(0), "-"},
		{"ratio cell", RatioCell(1.5), "1.50"},
		{"ratio cell zero", RatioCell(0), "-"},
		{"rate small", Rate(0.5), "0.5 ops/s"},
		{"rate large", Rate(1200), "1,200 ops/s"},
		{"rate cell", RateCell(12.5), "12.5"},
		{"rate cell zero is a value", RateCell(0), "0.0"},
		{"rate cell negative", RateCell(-1), "-"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}
