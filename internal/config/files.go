package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Why these limits: a secret or CA file is small; reading a mistaken path such as a device
// or a log file must not exhaust memory.
const (
	maxSecretFile = 1 << 20
	maxCAFile     = 16 << 20
)

// path resolves a file path from the config against the config file's directory.
func (d *decoder) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(d.dir, p)
}

// readFile reads a small regular file. Requiring a regular file keeps a mistaken path (a
// FIFO, a terminal, /dev/zero) from blocking or exhausting the load.
func readFile(name string, limit int64) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes", name, limit)
	}
	return data, nil
}

// fileError is an os error without the "open" prefix noise, keeping the path.
func fileError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}
