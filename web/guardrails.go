package web

import (
	"net/http"

	"github.com/partmon/partmon/analyzer"
	"github.com/partmon/partmon/analyzer/history"
	"github.com/partmon/partmon/model"
	"github.com/partmon/partmon/publish"
)

// guardrailsResponse is the body of GET /api/v1/guardrails: the thresholds
// every node runs with, each known key's distance to them and suggested
// values with their evidence and cassandra.yaml lines.
type guardrailsResponse struct {
	*analyzer.GuardrailReport
	// YAML is every suggestion's cassandra.yaml lines, one block.
	YAML string `json:"yaml"`
}

func guardrailsHandler(latest *publish.Latest) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.URL.Query()) > 0 {
			writeJSON(w, http.StatusBadRequest, apiError{"/api/v1/guardrails takes no parameters"})
			return
		}
		rep := latest.Report()
		if rep == nil {
			writeJSON(w, http.StatusServiceUnavailable, apiError{notReadyMessage})
			return
		}
		gr := rep.Guardrails
		if gr == nil {
			gr = &analyzer.GuardrailReport{Clients: "unknown"}
		}
		writeJSON(w, http.StatusOK, guardrailsResponse{GuardrailReport: gr, YAML: gr.GuardrailYAML()})
	})
}

// keysResponse is the body of GET /api/v1/keys/{keyspace}/{table}: each
// named key of the table over time, as the report shows keys (hashed or
// omitted in those modes), and the table's guardrail crossings.
type keysResponse struct {
	Keyspace  string                       `json:"keyspace"`
	Table     string                       `json:"table"`
	Keys      []history.NamedKeySeries     `json:"keys"`
	Crossings []analyzer.GuardrailCrossing `json:"crossings"`
	// Points says what each point's four numbers are.
	Points string `json:"points"`
}

const keyPointsLegend = "[unix seconds, size bytes, tombstones, traffic share in millionths]; 0: no source gave that figure that cycle"

func keysHandler(latest *publish.Latest) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ks, tbl := r.PathValue("keyspace"), r.PathValue("table")
		rep := latest.Report()
		if rep == nil {
			writeJSON(w, http.StatusServiceUnavailable, apiError{notReadyMessage})
			return
		}
		if !tableKnown(rep, ks, tbl) {
			writeJSON(w, http.StatusNotFound, apiError{"no table " + ks + "." + tbl + " in the latest report: check the keyspace and table names (case matters)"})
			return
		}
		out := keysResponse{Keyspace: ks, Table: tbl, Keys: rep.KeyHistory[model.TableKey(ks, tbl)],
			Crossings: []analyzer.GuardrailCrossing{}, Points: keyPointsLegend}
		if out.Keys == nil {
			out.Keys = []history.NamedKeySeries{}
		}
		if rep.Guardrails != nil {
			for _, c := range rep.Guardrails.Crossings {
				if c.Keyspace == ks && c.Table == tbl {
					out.Crossings = append(out.Crossings, c)
				}
			}
		}
		writeJSON(w, http.StatusOK, out)
	})
}

func tableKnown(rep *analyzer.Report, ks, tbl string) bool {
	for _, t := range rep.Tables {
		if t.Keyspace == ks && t.Table == tbl {
			return true
		}
	}
	_, ok := rep.KeyHistory[model.TableKey(ks, tbl)]
	return ok
}
