package archive

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

// damagedArchive writes a sound archive with a few sources and versions to a new file
// and returns its path and bytes.
func damagedArchive(t *testing.T) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "watcher.db")
	s, err := Open(path, Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 40 {
		src := fmt.Sprintf("source-%02d", i)
		id := fmt.Sprintf("incident-marker-%02d", i)
		sn := &model.Snapshot{Source: src, FetchedAt: at(1), Listings: []model.Listing{{Kind: model.KindIncident}},
			Incidents: []model.Incident{inc(id, update(strings.Repeat("words ", 200)))}}
		if _, err := s.Record(src, sn, nil, []model.Body{body("incidents", []byte(id))}, all); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, data
}

// damages are the kinds of damage a disk, a copy or a crash leaves, as functions of a
// sound file's bytes.
var damages = []struct {
	name   string
	damage func(data []byte) []byte
}{
	{"0 bytes", func([]byte) []byte { return nil }},
	{"truncated", func(data []byte) []byte { return data[:len(data)/3] }},
	{"garbage meta pages", func(data []byte) []byte {
		d := bytes.Clone(data)
		ps := os.Getpagesize()
		for i := 16; i < 2*ps; i++ {
			d[i] = byte(i * 7)
		}
		return d
	}},
	{"one garbage meta page", func(data []byte) []byte {
		d := bytes.Clone(data)
		for i := 16; i < 200; i++ {
			d[i] = byte(i * 7)
		}
		return d
	}},
	{"corrupted leaf page", func(data []byte) []byte {
		d := bytes.Clone(data)
		ps := os.Getpagesize()
		// The page that holds one incident's key: its header and first elements.
		i := bytes.Index(d[2*ps:], []byte("incident-marker-07")) + 2*ps
		page := i / ps * ps
		for j := page; j < page+64; j++ {
			d[j] = 0xff
		}
		return d
	}},
}

// TestDamagedArchive: a damaged file never panics. Open refuses it with one line naming
// the file and what to do, or opens it and then every read and write that meets the
// damage fails with ErrDamaged; Check lists the damage.
func TestDamagedArchive(t *testing.T) {
	for _, tt := range damages {
		t.Run(tt.name, func(t *testing.T) {
			path, sound := damagedArchive(t)
			if err := os.WriteFile(path, tt.damage(sound), 0o600); err != nil {
				t.Fatal(err)
			}
			problems, _, cerr := Check(path, 0)
			if cerr != nil {
				t.Errorf("Check: %v", cerr)
			}
			t.Logf("Check: %q", problems)
			s, err := Open(path, Options{NoSync: true})
			if err != nil {
				msg := err.Error()
				if !errors.Is(err, ErrDamaged) || strings.Contains(msg, "\n") || !strings.Contains(msg, path) ||
					!strings.Contains(msg, "restore it from a backup") || !strings.Contains(msg, "watcher check -archive") {
					t.Errorf("Open: got %q, want one line naming the file, ErrDamaged, with what to do", msg)
				}
				if len(problems) == 0 && tt.name != "one garbage meta page" {
					t.Errorf("Check found nothing in a file Open refuses")
				}
				return
			}
			defer s.Close()
			var errs []error
			_, err = s.Sources()
			errs = append(errs, err)
			_, err = s.Incidents("")
			errs = append(errs, err)
			for i := range 40 {
				src := fmt.Sprintf("source-%02d", i)
				id := fmt.Sprintf("incident-marker-%02d", i)
				_, err = s.VersionInfos(src, id)
				errs = append(errs, err)
				_, err = s.Latest(src, id)
				errs = append(errs, err)
				sn := &model.Snapshot{Source: src, FetchedAt: at(2), Listings: []model.Listing{{Kind: model.KindIncident}},
					Incidents: []model.Incident{inc(id, update("more"))}}
				_, err = s.Record(src, sn, nil, nil, all)
				errs = append(errs, err)
			}
			damaged := 0
			for _, err := range errs {
				switch {
				case err == nil, errors.Is(err, ErrNotFound): // the older meta page's state lacks the last commit
				case errors.Is(err, ErrDamaged):
					damaged++
				default:
					t.Errorf("got %v, want nil or ErrDamaged", err)
				}
			}
			t.Logf("%d of %d operations met the damage", damaged, len(errs))
			if damaged > 0 && len(problems) == 0 {
				t.Errorf("Check found nothing in a file whose reads fail")
			}
		})
	}
}
