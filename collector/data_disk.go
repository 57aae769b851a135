package collector

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/partmon/partmon/internal/configerr"
	"github.com/partmon/partmon/model"
)

// DataDiskConfig is collector.data_disk: the node's data directories
// (cassandra.yaml's data_file_directories), as the sidecar sees them
// mounted. Set, the data_disk source measures them as Cassandra's
// disk-usage guardrail does (docs/sources.md#data-disk).
type DataDiskConfig struct {
	Directories []string `yaml:"directories"`
}

// Configured says whether the data_disk source has directories to read.
func (c DataDiskConfig) Configured() bool { return len(c.Directories) > 0 }

func (c DataDiskConfig) validate(mode string) []error {
	var errs []error
	if c.Configured() && mode == ModeCluster {
		errs = append(errs, configerr.Field("collector.data_disk.directories", "data directories are one node's; they need mode %q", ModeSidecar))
	}
	for i, d := range c.Directories {
		if !filepath.IsAbs(d) {
			errs = append(errs, configerr.Field(fmt.Sprintf("collector.data_disk.directories[%d]", i), "%q is not an absolute path", d))
		}
	}
	return errs
}

// dataDiskSource measures the sidecar's own node's data directories: the
// size of each directory's tree (Directories.DataDirectory.getRawSize, a
// walk summing file sizes) and the usable space of each distinct file
// store holding them (FileStore.getUsableSpace), read from the file
// system, not from Cassandra.
type dataDiskSource struct {
	cfg DataDiskConfig
	// store answers for one directory which file store holds it and its
	// usable bytes (statfs); a test replaces it.
	store func(dir string) (device uint64, usable int64, err error)
}

func newDataDiskSource(cfg DataDiskConfig) dataDiskSource {
	return dataDiskSource{cfg: cfg, store: fileStoreOf}
}

func (dataDiskSource) Name() string { return "data_disk" }
func (dataDiskSource) Scope() Scope { return NodeScope }

// Facts: a one-minute bound, since Cassandra's own disk check runs every
// 30 s and a walk of a large data directory may take seconds.
func (s dataDiskSource) Facts() Facts {
	return Facts{Reads: "the first host's data directories",
		Help: "the first host's data directories, `collector.data_disk.directories` (each tree's size, each file store's usable space: what the disk-usage guardrail measures); sidecar mode only",
		Gate: everywhere, Schedule: everyMinute, Timeout: time.Minute,
		OffUnless: "collector.data_disk.directories", configured: s.cfg.Configured()}
}

func (s dataDiskSource) Collect(ctx context.Context, in Input, out *Output) (int, error) {
	if !in.Own {
		return 0, fmt.Errorf("%w: collector.data_disk.directories are the first host's", ErrUnsupported)
	}
	d := &model.DataDisk{Directories: len(s.cfg.Directories)}
	usable := map[uint64]int64{}
	files := 0
	for _, dir := range s.cfg.Directories {
		dev, free, err := s.store(dir)
		if err != nil {
			return files, fmt.Errorf("data directory %s: %w", dir, err)
		}
		usable[dev] = free
		n, size, err := treeSize(ctx, dir)
		files += n
		if err != nil {
			return files, fmt.Errorf("data directory %s: %w", dir, err)
		}
		d.UsedBytes += size
	}
	for _, free := range usable {
		d.UsableBytes += free
	}
	out.Node.DataDisk = d
	return files, nil
}

// treeSize sums the sizes of every file under dir, as Cassandra's
// FileUtils.folderSize does: links not followed, a file gone during the
// walk (a compaction's) skipped.
func treeSize(ctx context.Context, dir string) (files int, size int64, err error) {
	err = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && path != dir {
				return nil
			}
			return err
		}
		if e.IsDir() {
			return ctx.Err()
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		files++
		size += info.Size()
		return nil
	})
	return files, size, err
}
