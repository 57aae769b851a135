package web

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/partmon/partmon/keyadvice"
)

// AdviseFunc samples keyspace.table and projects its current key and the
// candidate keys on it (partmon advise's work). An error that is the
// caller's (an unknown column, a malformed key) has a BadInput() true.
type AdviseFunc func(ctx context.Context, table string, keys []string) (*keyadvice.Advice, error)

// adviseTimeout bounds one request's sample.
const adviseTimeout = 5 * time.Minute

// adviseHandler serves /api/v1/advise/{keyspace}/{table}?key=...&key=...:
// the Key design of one table as JSON. With f nil the advisor is off (the
// daemon's default) and says how to turn it on; one sample runs at a time,
// so a second request is told to retry rather than doubling the load.
func adviseHandler(f AdviseFunc) http.Handler {
	busy := make(chan struct{}, 1)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if f == nil {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "the key advisor is off: start partmon run with --advise.enabled, or run partmon advise"})
			return
		}
		select {
		case busy <- struct{}{}:
			defer func() { <-busy }()
		default:
			w.Header().Set("Retry-After", "30")
			writeJSON(w, http.StatusTooManyRequests, map[string]string{"error": "a key sample is already running: retry when it has finished"})
			return
		}
		// A sample may take minutes: past the server's write timeout its
		// answer would be lost after the node was read for it.
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(adviseTimeout + 10*time.Second))
		ctx, cancel := context.WithTimeout(r.Context(), adviseTimeout)
		defer cancel()
		adv, err := f(ctx, r.PathValue("keyspace")+"."+r.PathValue("table"), r.URL.Query()["key"])
		var bad interface{ BadInput() bool }
		switch {
		case errors.As(err, &bad) && bad.BadInput():
			writeJSON(w, http.StatusBadRequest, map[string]string{"error": err.Error()})
		case err != nil:
			writeJSON(w, http.StatusBadGateway, map[string]string{"error": err.Error()})
		default:
			writeJSON(w, http.StatusOK, adv)
		}
	})
}
