package testbin

import (
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
)

// RequireMappedRssFile skips the test unless reading a file of dir through a mapping shows
// in this process's RssFile. Where it does not (dir on tmpfs counts as RssShmem; some
// sandboxed kernels count nothing), a page-release test measures nothing, and its "mapped
// too little" would blame the release. Where it does, such a test can fail instead.
func RequireMappedRssFile(tb testing.TB, dir string) {
	tb.Helper()
	const size = 4 << 20
	path := filepath.Join(dir, "rssfile-probe")
	if err := os.WriteFile(path, make([]byte, size), 0o600); err != nil {
		tb.Fatal(err)
	}
	defer os.Remove(path)
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	data, err := syscall.Mmap(int(f.Fd()), 0, size, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		tb.Skipf("mmap: %v", err)
	}
	defer syscall.Munmap(data)
	before := ProcStatus(tb, os.Getpid(), "RssFile")
	var sum byte
	for i := 0; i < size; i += os.Getpagesize() {
		sum += data[i]
	}
	runtime.KeepAlive(sum) // the reads fault the pages in; keep the compiler from dropping them
	if grew := ProcStatus(tb, os.Getpid(), "RssFile") - before; grew < size/2 {
		tb.Skipf("reading %d KiB mapped from %s added %d KiB to RssFile", size>>10, dir, grew>>10)
	}
}
