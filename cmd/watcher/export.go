package main

import (
	"archive/zip"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/export"
)

func runExport(ctx context.Context, e *env, args []string) int {
	fs := configFlags(e, "export", "SOURCE/ID FILE", "Writes an incident's evidence bundle to FILE as a zip: every version, every change set, the raw\n"+
		"payloads still retained byte for byte, a Markdown report, and manifest.json with the SHA-256 of each\n"+
		"file. It reads the archive file, or the daemon's API while `watcher run` holds it; the bundle is\n"+
		"checked against its manifest before FILE is written.")
	source, id, code, ok := fs.parseRef(args, 2, 2)
	if !ok {
		return code
	}
	dest := fs.Arg(1)
	cfg, ok := fs.loadConfig()
	if !ok {
		return exitError
	}
	st, client, err := openArchive(cfg, readOnly)
	if err != nil {
		return e.fail(err)
	}
	// The bundle is checked against its manifest before it is renamed into place.
	var m *export.Manifest
	err = writeFile(dest, func(f *os.File) error {
		var err error
		if st != nil {
			err = fileServer(cfg, st, slog.New(slog.DiscardHandler)).Export(f, source, id)
		} else {
			err = client.Export(ctx, source, id, f)
		}
		if err == nil {
			m, err = verifyBundle(f)
		}
		return err
	})
	if st != nil {
		st.Close()
	}
	if err != nil {
		return browseError(e, source, id, err)
	}
	fmt.Fprintf(e.stdout, "evidence of %s/%s written to %s: %d files, each in manifest.json with its SHA-256", source, id, dest, len(m.Files))
	if len(m.Omitted) > 0 {
		fmt.Fprintf(e.stdout, "; %d raw payloads not included (see manifest.json, omitted)", len(m.Omitted))
	}
	fmt.Fprintln(e.stdout)
	return exitOK
}

// verifyBundle reads the zip written to f back and checks it against its manifest.
func verifyBundle(f *os.File) (*export.Manifest, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("the bundle is not a readable zip: %w", err)
	}
	m, _, err := export.Verify(zr)
	return m, err
}

// Export streams GET /api/v1/incidents/{source}/{id}/export into w.
func (a *apiClient) Export(ctx context.Context, source, id string, w io.Writer) error {
	body, err := a.download(ctx, incidentPath(source, id)+"/export", "export", archive.ErrNotFound)
	if err != nil {
		return err
	}
	defer body.Close()
	if _, err := io.Copy(w, body); err != nil {
		return fmt.Errorf("daemon API: %w", err)
	}
	return nil
}
