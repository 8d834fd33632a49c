// Package pageurls reads the pages' URLs from a watcher config written by the fleet
// benchmark (`go run ./bench/fleet -serve DIR`), for the floor programs: they link nothing
// of watcher's, so that their cost is a bare Go program's.
package pageurls

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// Read returns the values of the config's `url:` lines, without a trailing slash.
func Read(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var urls []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if u, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "url: "); ok {
			urls = append(urls, strings.TrimRight(strings.Trim(u, `"`), "/"))
		}
	}
	if len(urls) == 0 && sc.Err() == nil {
		return nil, fmt.Errorf("%s: no `url:` lines", path)
	}
	return urls, sc.Err()
}
