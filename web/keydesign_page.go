package web

import (
	"net/url"

	"github.com/partmon/partmon/keyadvice"
	"github.com/partmon/partmon/render"
)

// pageKeyDesign is the status page's "Key design" section: the key
// advisor's last answer for each table it was asked about, else how to ask.
type pageKeyDesign struct {
	// Enabled: the daemon serves /api/v1/advise (--advise.enabled).
	Enabled bool
	Tables  []pageKeyDesignTable
	// Ask is an advise URL to start from: a table with findings, else a
	// placeholder.
	Ask string
}

type pageKeyDesignTable struct {
	Table, TableURL, Sample, Taken string
	Keys                           []pageKeyDesignKey
}

type pageKeyDesignKey struct {
	Key     string
	Current bool
	Warned  bool
	Lines   [][2]string // label, text: the text report's lines
}

func newPageKeyDesign(enabled bool, held []*keyadvice.Advice, tables []pageTableLink) pageKeyDesign {
	d := pageKeyDesign{Enabled: enabled, Ask: "/api/v1/advise/KEYSPACE/TABLE?key=((a,%20b),%20ts)"}
	for _, t := range tables {
		if ks, tb, ok := splitTable(t.Table); ok {
			d.Ask = "/api/v1/advise/" + url.PathEscape(ks) + "/" + url.PathEscape(tb)
			break
		}
	}
	for _, a := range held {
		t := pageKeyDesignTable{Table: a.Keyspace + "." + a.Table, TableURL: tableURL(a.Keyspace, a.Table),
			Sample: render.KeyDesignSample(a), Taken: pageTime(a.Sample.Taken)}
		for _, p := range a.Keys {
			t.Keys = append(t.Keys, pageKeyDesignKey{Key: p.Key, Current: p.Current, Warned: len(p.Warnings) > 0, Lines: render.KeyDesignLines(p)})
		}
		d.Tables = append(d.Tables, t)
	}
	return d
}

// splitTable splits "keyspace.table" at its first dot (CQL names hold none).
func splitTable(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '.' {
			return s[:i], s[i+1:], i > 0 && i < len(s)-1
		}
	}
	return "", "", false
}
