package archtest

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/partmon/partmon/tools/testkit"
)

// figureSections are the sections whose measured figures must each come
// from one run written up in docs/benchmarks.md or docs/scale.md: README's
// performance and comparison sections, kept whole in docs/performance.md
// (README links there).
var figureSections = []string{"### At 100 nodes and more", "## How partmon compares"}

// figureFile holds figureSections.
const figureFile = "docs/performance.md"

// figureUnit is a measured figure's unit; longer alternatives first.
const figureUnit = `(samples/s|statements|requests|series|×|ms|µs|s|MiB|GiB|KiB|MB|GB|%)`

// figureRe is a number, or a range of two, followed by its unit; the unit
// must end the word ("100 sidecars" is no figure).
var figureRe = regexp.MustCompile(`(\d[\d,]*(?:\.\d+)?)(?:\s?[–-]\s?(\d[\d,]*(?:\.\d+)?))?\s?` + figureUnit + `([^\p{L}/]|$)`)

// unitWordRe finds the unit a docs table's column header or row label
// names ("node CPU per cycle, ms"): its cells then hold bare numbers.
var unitWordRe = regexp.MustCompile(`(?:^|[\s,(:])` + figureUnit + `(?:$|[\s,):])`)

var bareNumberRe = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)

// docsLinkRe is a link to a run's section of the docs.
var docsLinkRe = regexp.MustCompile(`\]\((?:\.\./)?docs/(benchmarks|scale)\.md(#[a-z0-9-]+)?\)`)

// figure is one measured value as written: "22.9×" is {22.9, 1, "×"}.
type figure struct {
	text     string
	value    float64
	decimals int
	unit     string
}

// figuresIn are the figures of s; ranges give both ends. A figure after
// "every" is a schedule, not a measurement.
func figuresIn(s string) []figure {
	var out []figure
	for _, m := range figureRe.FindAllStringSubmatchIndex(s, -1) {
		if m[0] > 0 && strings.ContainsAny(s[m[0]-1:m[0]], "0123456789.,_#/") {
			continue // the tail of a longer number, a version or a path
		}
		if strings.HasSuffix(strings.TrimRight(s[:m[0]], " ~"), "every") {
			continue
		}
		unit := s[m[6]:m[7]]
		for _, g := range [][2]int{{m[2], m[3]}, {m[4], m[5]}} {
			if g[0] >= 0 {
				out = append(out, parseFigure(s[g[0]:g[1]], unit))
			}
		}
	}
	return out
}

func parseFigure(num, unit string) figure {
	clean := strings.ReplaceAll(num, ",", "")
	v, _ := strconv.ParseFloat(clean, 64)
	d := 0
	if _, frac, ok := strings.Cut(clean, "."); ok {
		d = len(frac)
	}
	return figure{text: num + " " + unit, value: v, decimals: d, unit: unit}
}

// matches says whether the docs' d is f as written or rounded to f's decimals.
func (f figure) matches(d figure) bool {
	if f.unit != d.unit {
		return false
	}
	p := math.Pow(10, float64(f.decimals))
	return math.Abs(math.Round(d.value*p)-f.value*p) < 1e-6
}

// docFigures are the figures of one docs section: figures with their unit
// in prose and cells, and the bare numbers of a table row whose first cell
// names the unit.
func docFigures(section string) []figure {
	out := figuresIn(section)
	lines := strings.Split(section, "\n")
	var header []string // the current table's column headers
	for i, line := range lines {
		line = strings.TrimSpace(line) // a table inside a list item is indented
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if strings.HasPrefix(line, "|---") {
			continue
		}
		if !strings.HasPrefix(line, "|") || len(cells) < 2 {
			header = nil
			continue
		}
		if i+1 < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[i+1]), "|---") {
			header = cells
			continue
		}
		rowUnit := unitNamed(cells[0])
		for j, c := range cells[1:] {
			unit := unitNamed(cellOf(header, j+1))
			if unit == "" {
				unit = rowUnit
			}
			if unit == "" {
				continue
			}
			for _, n := range bareNumberRe.FindAllString(c, -1) {
				out = append(out, parseFigure(n, unit))
			}
		}
	}
	return out
}

// unitNamed is the last unit a header or row label names ("every 15 s, ms": ms).
func unitNamed(label string) string {
	m := unitWordRe.FindAllStringSubmatch(label, -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

func cellOf(cells []string, i int) string {
	if i < len(cells) {
		return cells[i]
	}
	return ""
}

// slug is GitHub's anchor for a heading.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(strings.TrimLeft(heading, "#"))) {
		switch {
		case r == ' ' || r == '-':
			b.WriteRune('-')
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9', r == '_':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// docSections maps each anchor of a docs page (a heading's slug or an
// <a id="...">) to its section: the text up to the next heading after it.
func docSections(text string) map[string]string {
	lines := strings.Split(text, "\n")
	out := map[string]string{}
	idRe := regexp.MustCompile(`^<a id="([^"]+)"></a>$`)
	for i, l := range lines {
		var anchor string
		start := i + 1
		if m := idRe.FindStringSubmatch(l); m != nil {
			anchor = m[1]
			if start < len(lines) && strings.HasPrefix(lines[start], "#") {
				start++ // the heading the anchor stands on
			}
		} else if strings.HasPrefix(l, "#") {
			anchor = slug(l)
		} else {
			continue
		}
		end := start
		for end < len(lines) && !strings.HasPrefix(lines[end], "#") && !idRe.MatchString(lines[end]) {
			end++
		}
		if _, dup := out[anchor]; !dup {
			out[anchor] = strings.Join(lines[start:end], "\n")
		}
	}
	return out
}

// readmeSection is the text under heading up to the next heading of the
// same or a higher level.
func readmeSection(t *testing.T, readme, heading string) string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n"+heading+"\n")
	if !ok {
		t.Fatalf("README has no %q section", heading)
	}
	level := strings.Index(heading, " ")
	for _, l := range strings.Split(rest, "\n") {
		if n := strings.Index(l, " "); strings.HasPrefix(l, "#") && n > 0 && n <= level && strings.Trim(l[:n], "#") == "" {
			rest, _, _ = strings.Cut(rest, "\n"+l+"\n")
			break
		}
	}
	return rest
}

// claims splits a section into what cites one source: each sentence or
// clause (at ". " or "; " outside parentheses) of prose and of table cells.
func claims(section string) []string {
	var out []string
	var prose strings.Builder
	flush := func() {
		out = append(out, sentences(prose.String())...)
		prose.Reset()
	}
	for _, l := range strings.Split(section, "\n") {
		switch {
		case strings.HasPrefix(l, "|"):
			flush()
			for _, cell := range strings.Split(strings.Trim(l, "|"), " | ") {
				out = append(out, sentences(cell)...)
			}
		case strings.TrimSpace(l) == "", strings.HasPrefix(l, "- "):
			flush()
			prose.WriteString(strings.TrimPrefix(l, "- ") + " ")
		default:
			prose.WriteString(l + " ")
		}
	}
	flush()
	return out
}

func sentences(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth = max(depth-1, 0)
		case '.', ';':
			if depth == 0 && i+1 < len(s) && s[i+1] == ' ' && !strings.HasSuffix(s[:i], "e.g") && !strings.HasSuffix(s[:i], "i.e") {
				out = append(out, s[start:i+1])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// TestReadmeFiguresTraceable holds every measured figure of README's
// performance, comparison and scale sections to the docs: each sentence or
// table cell with a figure links to exactly one run's section of
// docs/benchmarks.md or docs/scale.md (one anchor: a row never mixes runs),
// and each of its figures is in that section, the same number (or its
// rounding to the README's decimals) in the same unit.
func TestReadmeFiguresTraceable(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(testkit.Path(t, p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	readme := read(figureFile)
	docs := map[string]map[string]string{
		"benchmarks": docSections(read("docs/benchmarks.md")),
		"scale":      docSections(read("docs/scale.md")),
	}
	checked := 0
	for _, h := range figureSections {
		for _, c := range claims(readmeSection(t, readme, h)) {
			figs := figuresIn(docsLinkRe.ReplaceAllString(c, "]"))
			if len(figs) == 0 {
				continue
			}
			checked += len(figs)
			if err := traceClaim(c, figs, docs); err != "" {
				t.Errorf("%s %q: %s\n  in: %s", figureFile, h, err, strings.TrimSpace(c))
			}
		}
	}
	if checked < 20 {
		t.Errorf("only %d figures found in %s's %v: the extraction is broken", checked, figureFile, figureSections)
	}
}

// traceClaim checks one claim's figures against the one section it cites.
func traceClaim(claim string, figs []figure, docs map[string]map[string]string) string {
	cited := map[string]bool{}
	var page, anchor string
	for _, m := range docsLinkRe.FindAllStringSubmatch(claim, -1) {
		page, anchor = m[1], strings.TrimPrefix(m[2], "#")
		cited[page+"#"+anchor] = true
	}
	switch {
	case len(cited) == 0:
		return fmt.Sprintf("figures %s cite no docs section (link docs/benchmarks.md#… or docs/scale.md#…)", texts(figs))
	case len(cited) > 1:
		return fmt.Sprintf("one sentence or cell cites %d sections, mixing runs: split it", len(cited))
	case anchor == "":
		return fmt.Sprintf("the link to docs/%s.md names no section (#anchor) for %s", page, texts(figs))
	}
	section, ok := docs[page][anchor]
	if !ok {
		return fmt.Sprintf("docs/%s.md has no section #%s", page, anchor)
	}
	have := docFigures(section)
	var missing []figure
	for _, f := range figs {
		found := false
		for _, d := range have {
			if f.matches(d) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, f)
		}
	}
	if len(missing) > 0 {
		return fmt.Sprintf("%s not in docs/%s.md#%s", texts(missing), page, anchor)
	}
	return ""
}

func texts(fs []figure) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = f.text
	}
	return strings.Join(s, ", ")
}
