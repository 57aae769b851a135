package statefile

import (
	"encoding/json"
	"io"
	"os"
	"sync"
)

// heldPaths are the state files a newer partmon wrote that Load found:
// this process never writes over them.
var (
	heldMu    sync.Mutex
	heldPaths = map[string]bool{}
)

func held(path string) bool {
	heldMu.Lock()
	defer heldMu.Unlock()
	return heldPaths[path]
}

func hold(path string) {
	heldMu.Lock()
	defer heldMu.Unlock()
	heldPaths[path] = true
}

// newerOnDisk: the file at path begins as a state file of a newer version
// (a newer partmon started since this one loaded). Only the head is read:
// partmon writes format and version first.
func newerOnDisk(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	dec := json.NewDecoder(io.LimitReader(f, 512))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	var format string
	for i := 0; i < 2; i++ {
		name, err := dec.Token()
		if err != nil {
			return false
		}
		switch name {
		case "format":
			if dec.Decode(&format) != nil {
				return false
			}
		case "version":
			var v int
			if dec.Decode(&v) != nil {
				return false
			}
			return format == Format && v > Version
		default:
			return false
		}
	}
	return false
}
