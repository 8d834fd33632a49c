package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"

	"github.com/statuswatch/statuswatch/internal/archive"
)

func runBackup(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "backup", "FILE", "Writes a consistent copy of the archive to FILE while polling goes on (through the daemon when it holds the archive).\nRestore by stopping the daemon and putting the copy in place of the archive.")
	cfgPath := configFlag(fs)
	if code, ok := parseArgs(fs, args, 1, 1); !ok {
		return code
	}
	dest := fs.Arg(0)
	cfg, ok := loadConfig(e, *cfgPath)
	if !ok {
		return exitError
	}
	var n int64
	err := writeFile(dest, func(f *os.File) (err error) {
		n, err = writeBackup(ctx, cfg.Database, f, func() (*apiClient, error) { return newAPIClient(cfg) })
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
func writeBackup(ctx context.Context, path string, w io.Writer, api func() (*apiClient, error)) (int64, error) {
	st, err := archive.Open(path, archive.Options{ReadOnly: true, MustExist: true})
	if err == nil {
		defer st.Close()
		return st.WriteTo(w)
	}
	if !errors.Is(err, archive.ErrLocked) {
		return 0, err
	}
	a, aerr := api()
	if aerr != nil {
		return 0, fmt.Errorf("%w; %v", err, aerr)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.base+"/api/v1/backup", nil)
	if err != nil {
		return 0, err
	}
	if a.auth != nil {
		a.auth(req)
	}
	resp, err := (&http.Client{}).Do(req) // no overall timeout: an archive may take long to copy
	if err != nil {
		return 0, fmt.Errorf("daemon API: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("daemon API: backup answered HTTP %d", resp.StatusCode)
	}
	return io.Copy(w, resp.Body)
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
	fs := newFlags(e, "compact", "", "Rewrites the archive without the space that pruning and deletes freed, and swaps it in atomically.\nRefuses while the daemon runs: stop it first (systemctl stop watcher).")
	cfgPath := configFlag(fs)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, ok := loadConfig(e, *cfgPath)
	if !ok {
		return exitError
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
