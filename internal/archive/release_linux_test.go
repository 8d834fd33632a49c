package archive

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// rssFile is this process's resident file-backed memory, in KiB.
func rssFile(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "RssFile:"); ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// TestReleasePages reads a 20 MB archive through its mapping, releases the pages while
// other goroutines keep reading, and checks the mapping left the RSS and every read still
// sees the right data.
func TestReleasePages(t *testing.T) {
	ts := MustOpen(t)
	var incs []model.Incident
	for i := range 400 {
		body := strings.Repeat(fmt.Sprintf("word%d ", i), 8000)
		incs = append(incs, inc(fmt.Sprintf("i%03d", i), func(in *model.Incident) { in.Updates[0].Body = body }))
	}
	ts.record(snap(t0, incs...), all, nil)

	read := func() error {
		for i := range 400 {
			v, err := ts.Version("acme", fmt.Sprintf("i%03d", i), 1)
			if err != nil {
				return err
			}
			if want := strings.Repeat(fmt.Sprintf("word%d ", i), 8000); v.Incident.Updates[0].Body != want {
				return fmt.Errorf("i%03d: body of %d bytes, want %d", i, len(v.Incident.Updates[0].Body), len(want))
			}
		}
		return nil
	}
	before := rssFile(t)
	if err := read(); err != nil {
		t.Fatal(err)
	}
	mapped := rssFile(t) - before
	if mapped < 10<<10 {
		t.Skipf("reading the archive mapped only %d KiB", mapped)
	}

	var wg sync.WaitGroup
	errs := make(chan error, 2)
	for range 2 {
		wg.Go(func() {
			for deadline := time.Now().Add(200 * time.Millisecond); time.Now().Before(deadline); {
				if err := read(); err != nil {
					errs <- err
					return
				}
			}
		})
	}
	for range 20 {
		if err := ts.ReleasePages(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Millisecond)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("read while releasing: %v", err)
	}

	if err := ts.ReleasePages(); err != nil {
		t.Fatal(err)
	}
	if left := rssFile(t) - before; left > mapped/4 {
		t.Errorf("after ReleasePages %d KiB of the %d KiB mapped by reading are still resident", left, mapped)
	}
	if err := read(); err != nil {
		t.Fatalf("read after release: %v", err)
	}
}
