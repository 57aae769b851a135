// Package format writes the numbers partmon shows people: sizes, durations,
// ratios, percentages, counts and rates. It is the one home of these
// formatters for the analyzer's finding texts, the one-shot report and the
// status page. Standard library only: the analyzer imports it.
//
// Two forms exist per kind where the callers need both:
//   - the prose form (Bytes, Seconds, Percent, Count, Rate) goes into
//     sentences, with as few digits as read well: "480 MiB", "12 min", "62 %";
//   - the cell form (BytesCell, PercentCell, RatioCell, RateCell) goes into
//     table columns: fixed precision so a column reads alike, and "-" where
//     the value is zero or unknown.
package format

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// unknown is what a cell shows for a zero or unknown value.
const unknown = "-"

var byteUnits = []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}

// scaleBytes divides b by 1024 until it is below 1024 or the units run out.
func scaleBytes(b float64) (float64, string) {
	i := 0
	for math.Abs(b) >= 1024 && i < len(byteUnits)-1 {
		b /= 1024
		i++
	}
	return b, byteUnits[i]
}

// Bytes writes a size in binary units for prose: "480 MiB", "1.5 GiB",
// "1023 B"; one decimal only below 10 of a unit.
func Bytes(b float64) string {
	v, unit := scaleBytes(b)
	if unit == "B" || math.Abs(v) >= 10 {
		return fmt.Sprintf("%.0f %s", v, unit)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

// BytesCell writes a size for a table column: one decimal from 1 KiB up
// ("200.0 MiB"), whole bytes below, "-" when zero, negative or unknown.
func BytesCell(b float64) string {
	if b <= 0 || math.IsNaN(b) {
		return unknown
	}
	v, unit := scaleBytes(b)
	if unit == "B" {
		return fmt.Sprintf("%.0f B", v)
	}
	return fmt.Sprintf("%.1f %s", v, unit)
}

// Seconds writes a duration short, for prose: "45 s", "12 min", "5.2 h", "3.4 d".
func Seconds(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.0f s", s)
	case s < 2*3600:
		return fmt.Sprintf("%.0f min", s/60)
	case s < 2*86400:
		return fmt.Sprintf("%.1f h", s/3600)
	}
	return fmt.Sprintf("%.1f d", s/86400)
}

// SecondsWords writes a duration in words: "45 seconds", "10 minutes",
// "5.0 hours", "3.0 days" (the report's node states and forecasts).
func SecondsWords(s float64) string {
	d := time.Duration(s * float64(time.Second))
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%.1f days", d.Hours()/24)
	case d >= 2*time.Hour:
		return fmt.Sprintf("%.1f hours", d.Hours())
	case d >= 2*time.Minute:
		return fmt.Sprintf("%.0f minutes", d.Minutes())
	}
	return fmt.Sprintf("%.0f seconds", d.Seconds())
}

// Latency writes a short measured duration, such as a query's, to the
// millisecond: "250ms", "1.5s", "10s".
func Latency(d time.Duration) string {
	return d.Round(time.Millisecond).String()
}

// Count writes a whole number with thousands separators: "1,234,567".
func Count(n float64) string {
	v := int64(math.Round(n))
	neg := v < 0
	if neg {
		v = -v
	}
	digits := strconv.FormatInt(v, 10)
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// Percent writes a 0..1 fraction as a percentage for prose: "62 %", "4.5 %".
func Percent(f float64) string {
	p := f * 100
	if math.Abs(p) >= 10 {
		return fmt.Sprintf("%.0f %%", p)
	}
	return fmt.Sprintf("%.1f %%", p)
}

// PercentCell writes a 0..1 fraction for a table column: "75.0%", "-"
// when zero or unknown.
func PercentCell(f float64) string {
	if f <= 0 || math.IsNaN(f) {
		return unknown
	}
	return fmt.Sprintf("%.1f%%", f*100)
}

// RatioCell writes a ratio (1 is fair) for a table column: "1.50", "-"
// when zero or unknown.
func RatioCell(v float64) string {
	if v <= 0 || math.IsNaN(v) {
		return unknown
	}
	return fmt.Sprintf("%.2f", v)
}

// Rate writes an operation rate for prose: "1,200 ops/s", "0.5 ops/s".
func Rate(r float64) string {
	if r >= 100 {
		return Count(r) + " ops/s"
	}
	return fmt.Sprintf("%.1f ops/s", r)
}

// RateCell writes a per-second rate for a table column: "12.5", "0.0";
// "-" when unknown (negative or NaN).
func RateCell(v float64) string {
	if v < 0 || math.IsNaN(v) {
		return unknown
	}
	return fmt.Sprintf("%.1f", v)
}
