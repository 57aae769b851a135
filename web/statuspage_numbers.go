package web

import (
	"net/url"
	"strings"
	"time"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/finding"
	"github.com/partmon/partmon/headline"
)

// pageNumber is a finding's number in words (headline.Number).
func pageNumber(f finding.Finding, th analyzer.Thresholds, now time.Time) (value, against string) {
	return headline.Number(f, th, now)
}

// tableKeyURL is the page of a table named "keyspace.table" (model.TableKey).
func tableKeyURL(key string) string {
	ks, t, ok := strings.Cut(key, ".")
	if !ok {
		return ""
	}
	return tableURL(ks, t)
}

// tableURL is the table's own page.
func tableURL(keyspace, table string) string {
	if table == "" {
		return ""
	}
	return "/tables/" + url.PathEscape(keyspace) + "/" + url.PathEscape(table)
}
