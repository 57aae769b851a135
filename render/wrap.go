package render

import (
	"strings"
	"unicode/utf8"
)

// lineWidth bounds the text report's lines (in characters): a report is
// read in a terminal or pasted into a ticket.
const lineWidth = 100

// indent is a finding's detail lines' indent under its heading.
const indent = "      "

// wrap writes s as lines of at most lineWidth characters: the first after
// prefix, the rest two spaces further in. A word longer than a line (a key,
// a path) is cut.
func (p *printer) wrap(prefix, s string) {
	for _, line := range wrapLines(prefix, s, lineWidth) {
		p.f("%s\n", strings.ReplaceAll(line, glueSpace, " "))
	}
}

// glueSpace is a space wrap never breaks at (a number against its threshold).
const glueSpace = "\x00"

// glue keeps a short s on one line when wrapped (a longer one wraps as prose).
func glue(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		return s
	}
	return strings.ReplaceAll(s, " ", glueSpace)
}

func wrapLines(prefix, s string, width int) []string {
	s = strings.Join(strings.Fields(s), " ")
	var out []string
	cur, more := prefix, prefix+"  "
	curLen, start := utf8.RuneCountInString(prefix), true
	for _, word := range strings.Split(s, " ") {
		for word != "" {
			n := utf8.RuneCountInString(word)
			sep := 1
			if start {
				sep = 0
			}
			if curLen+sep+n <= width {
				if !start {
					cur += " "
				}
				cur, curLen, start, word = cur+word, curLen+sep+n, false, ""
				continue
			}
			if !start {
				out = append(out, cur)
				cur, curLen, start = more, utf8.RuneCountInString(more), true
				continue
			}
			// A word longer than a whole line: cut it.
			room := width - curLen
			r := []rune(word)
			out = append(out, cur+string(r[:room]))
			cur, curLen, word = more, utf8.RuneCountInString(more), string(r[room:])
		}
	}
	return append(out, cur)
}
