package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
)

// The daemon phase starts on an archive filled by one cold `watcher poll` over every
// page. At 10,000 pages that round takes minutes, and it is the same every run: the
// pages are deterministic (their histories from fixed seeds and a fixed epoch, their
// ETags from the bytes). -archive FILE fills it once and keeps it in FILE; every later
// run (of this process or another) copies FILE instead, as long as FILE was filled
// from the same pages (FILE.key) and this build opens it without migrating it.

// prefillKey names what an archive was filled from: the pages' count, protocol,
// components, and a digest of every page's ETags (their bytes).
func (b *bench) prefillKey(n int) string {
	h := sha256.New()
	for i := range n {
		p := b.fleet.Page(i)
		fmt.Fprintf(h, "%s %s %s\n", p.ETag(incidentsPath), p.ETag("/api/v2/summary.json"), p.ETag("/api/v2/scheduled-maintenances.json"))
	}
	return fmt.Sprintf("pages %d, tls %v, components %d, etags %s\n", n, b.o.TLS, b.o.Components, hex.EncodeToString(h.Sum(nil)[:12]))
}

// prefill fills the archive at db for the daemon's cold-free start: a copy of
// -archive's file when it matches, else a `watcher poll` round over cfg (kept in
// -archive's file for the next runs). reused reports a copy.
func (b *bench) prefill(ctx context.Context, r int, dir, cfg, db string) (u usage, reused bool, err error) {
	var key string
	if b.o.Archive != "" {
		key = b.prefillKey(b.o.DaemonSources)
		if ok, why := b.archiveMatches(key); ok {
			start := time.Now()
			if err := copyFile(b.o.Archive, db); err != nil {
				return u, false, err
			}
			b.logf("daemon run %d: archive copied from %s (filled by an earlier run for the same pages) in %v", r+1, b.o.Archive, time.Since(start).Round(time.Millisecond))
			return u, true, nil
		} else {
			b.logf("daemon run %d: %s: %s; filling it with a cold round", r+1, b.o.Archive, why)
		}
	}
	u, err = child{name: "watcher-poll", dir: dir, path: b.watcher, args: []string{"poll", "-config", cfg}}.run(ctx)
	if err != nil {
		return u, false, err
	}
	b.logf("daemon run %d: cold round over %d sources first: CPU %v, wall %v, RSS %s", r+1, b.o.DaemonSources, u.CPU.Round(time.Millisecond), u.Wall.Round(time.Millisecond), mib(u.MaxRSS))
	if b.o.Archive != "" {
		if err := copyFile(db, b.o.Archive); err != nil {
			return u, false, err
		}
		if err := os.WriteFile(b.o.Archive+".key", []byte(key), 0o600); err != nil {
			return u, false, err
		}
		b.logf("daemon run %d: archive kept in %s for the next runs", r+1, b.o.Archive)
	}
	return u, false, nil
}

// archiveMatches reports whether -archive's file was filled from the pages key names
// and opens with this build as it is; why says what is wrong when not.
func (b *bench) archiveMatches(key string) (ok bool, why string) {
	got, err := os.ReadFile(b.o.Archive + ".key")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return false, "not filled yet"
	case err != nil:
		return false, err.Error()
	case string(got) != key:
		return false, fmt.Sprintf("filled for other pages (%s), not these (%s)", strings.TrimSpace(string(got)), strings.TrimSpace(key))
	}
	st, err := archive.Open(b.o.Archive, archive.Options{ReadOnly: true})
	if err != nil {
		return false, fmt.Sprintf("does not open as it is with this build (%v)", err)
	}
	st.Close()
	return true, ""
}

// copyFile copies src to dst (created or truncated), synced.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
