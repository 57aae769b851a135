//go:build !linux

package collector

import "fmt"

// fileStoreOf is Linux-only: partmon's sidecar runs beside Linux nodes.
func fileStoreOf(string) (uint64, int64, error) {
	return 0, 0, fmt.Errorf("%w: the data_disk source reads statfs on Linux only", ErrUnsupported)
}
