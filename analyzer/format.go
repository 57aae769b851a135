package analyzer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// formatBytes writes a size with binary units: "480 MiB", "1.5 GiB".
func formatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
	i := 0
	for math.Abs(b) >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 || math.Abs(b) >= 10 {
		return fmt.Sprintf("%.0f %s", b, units[i])
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// formatSeconds writes a duration the way an operator reads it: "45 s",
// "12 min", "5.2 h", "3.4 d".
func formatSeconds(s float64) string {
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

// formatCount writes an integer with thousands separators: "1,234,567".
func formatCount(n float64) string {
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

// formatPercent writes a 0..1 fraction as a percentage: "62 %", "4.5 %".
func formatPercent(f float64) string {
	p := f * 100
	if math.Abs(p) >= 10 {
		return fmt.Sprintf("%.0f %%", p)
	}
	return fmt.Sprintf("%.1f %%", p)
}

// formatRate writes an operation rate: "1,200 ops/s", "0.5 ops/s".
func formatRate(r float64) string {
	if r >= 100 {
		return formatCount(r) + " ops/s"
	}
	return fmt.Sprintf("%.1f ops/s", r)
}
