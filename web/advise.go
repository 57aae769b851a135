package web

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"sync"
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
// The handler keeps each table's last answer in held, which the status
// page shows; held may be nil.
func adviseHandler(f AdviseFunc, held *heldAdvice) http.Handler {
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
			held.put(adv)
			writeJSON(w, http.StatusOK, adv)
		}
	})
}

// heldAdviceTables bounds how many tables' answers the daemon keeps.
const heldAdviceTables = 20

// heldAdvice is the last Key design the API answered for each table, in
// memory only: a restart forgets them, and the oldest goes past
// heldAdviceTables.
type heldAdvice struct {
	mu     sync.Mutex
	byName map[string]*keyadvice.Advice
}

func (h *heldAdvice) put(a *keyadvice.Advice) {
	if h == nil || a == nil {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.byName == nil {
		h.byName = map[string]*keyadvice.Advice{}
	}
	h.byName[a.Keyspace+"."+a.Table] = a
	for len(h.byName) > heldAdviceTables {
		oldest := ""
		for name, x := range h.byName {
			if oldest == "" || x.Sample.Taken.Before(h.byName[oldest].Sample.Taken) {
				oldest = name
			}
		}
		delete(h.byName, oldest)
	}
}

// all are the held answers, the newest first.
func (h *heldAdvice) all() []*keyadvice.Advice {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]*keyadvice.Advice, 0, len(h.byName))
	for _, a := range h.byName {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		if !out[i].Sample.Taken.Equal(out[j].Sample.Taken) {
			return out[i].Sample.Taken.After(out[j].Sample.Taken)
		}
		return out[i].Keyspace+"."+out[i].Table < out[j].Keyspace+"."+out[j].Table
	})
	return out
}
