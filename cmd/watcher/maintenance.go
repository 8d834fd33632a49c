package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
)

func runBackup(ctx context.Context, e *env, args []string) int {
	fs := configFlags(e, "backup", "FILE", "Writes a consistent copy of the archive to FILE while polling goes on (through the daemon when it holds the archive).\nRestore by stopping the daemon and putting the copy in place of the archive.")
	if code, ok := fs.parseArgs(args, 1, 1); !ok {
		return code
	}
	dest := fs.Arg(0)
	cfg, ok := fs.loadConfig()
	if !ok {
		return exitError
	}
	var n int64
	err := writeFile(dest, func(f *os.File) (err error) {
		n, err = writeBackup(ctx, cfg, f)
		return err
	})
	if err != nil {
		fmt.Fprintf(e.stderr, "error: backup: %v\n", err)
		return exitError
	}
	fmt.Fprintf(e.stdout, "backup of %s written to %s (%d bytes)\n", cfg.Database, dest, n)
	return exitOK
}

// writeBackup copies the archive into w, from the file when it is free, else through the
// daemon's API.
func writeBackup(ctx context.Context, cfg *config.Config, w io.Writer) (int64, error) {
	st, a, err := openArchive(cfg, readOnly)
	if err != nil {
		return 0, err
	}
	if st != nil {
		defer st.Close()
		return st.WriteTo(w)
	}
	body, err := a.download(ctx, "/api/v1/backup", "backup", nil)
	if err != nil {
		return 0, err
	}
	defer body.Close()
	return io.Copy(w, body)
}

// writeFile writes dest through write, beside it first, then renames it into place once
// write succeeded and the file is synced: a failed write never leaves a file at dest that
// looks complete.
func writeFile(dest string, write func(*os.File) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = write(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), dest)
	}
	return err
}

func runCompact(_ context.Context, e *env, args []string) int {
	fs := configFlags(e, "compact", "", "Rewrites the archive without the space that pruning and deletes freed, and swaps it in atomically.\nRefuses while the daemon runs: stop it first (systemctl stop watcher).")
	cfg, code := fs.parseConfig(args)
	if cfg == nil {
		return code
	}
	before, after, err := archive.Compact(cfg.Database, 0)
	if errors.Is(err, archive.ErrLocked) {
		fmt.Fprintf(e.stderr, "error: %v\nhint: stop the daemon first (systemctl stop watcher), compact, then start it again\n", err)
		return exitError
	}
	if err != nil {
		return e.fail(err)
	}
	fmt.Fprintf(e.stdout, "compacted %s: %d → %d bytes\n", cfg.Database, before, after)
	return exitOK
}
