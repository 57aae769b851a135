package web

import (
	"slices"
	"strings"

	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
)

// pageDown is the "cannot reach the database" banner: every source of the
// latest cycle failed, nearly always for one reason that a row per source
// would repeat (21 times for one node).
type pageDown struct {
	Errors []pageDownError
}

// pageDownError is one distinct cause, with how many reads it failed.
type pageDownError struct {
	Error   string
	Sources int
	Nodes   string
}

// lastErrorMark prefixes the cause in a backed-off source's error.
const lastErrorMark = "last error: "

// pageUnreachable is the banner of a cycle in which no source succeeded,
// nil otherwise.
func pageUnreachable(c publish.Cycle) *pageDown {
	if c.Up || len(c.Sources) == 0 {
		return nil
	}
	byCause := map[string]*pageDownError{}
	nodes := map[string][]string{}
	var order []string
	for _, s := range c.Sources {
		switch s.State {
		case model.StateOK:
			return nil
		case model.StateError:
		default:
			continue
		}
		cause := s.Error
		if i := strings.LastIndex(cause, lastErrorMark); i >= 0 {
			cause = cause[i+len(lastErrorMark):]
		}
		e := byCause[cause]
		if e == nil {
			e = &pageDownError{Error: cause}
			byCause[cause] = e
			order = append(order, cause)
		}
		e.Sources++
		if s.Node != "" && !slices.Contains(nodes[cause], s.Node) {
			nodes[cause] = append(nodes[cause], s.Node)
		}
	}
	if len(order) == 0 {
		return nil
	}
	d := &pageDown{}
	for _, cause := range order {
		e := byCause[cause]
		slices.Sort(nodes[cause])
		e.Nodes = strings.Join(nodes[cause], ", ")
		d.Errors = append(d.Errors, *e)
	}
	return d
}
