package collector

import (
	"fmt"
	"syscall"
)

// fileStoreOf names the file store holding dir by its device and returns
// its usable bytes: f_bavail × f_frsize, what Java's FileStore.getUsableSpace
// returns on Linux.
func fileStoreOf(dir string) (uint64, int64, error) {
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		return 0, 0, fmt.Errorf("stat: %w", err)
	}
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return 0, 0, fmt.Errorf("statfs: %w", err)
	}
	return uint64(st.Dev), int64(fs.Bavail) * fs.Frsize, nil
}
