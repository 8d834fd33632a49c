// Package pages is what the floor programs share about the fleet benchmark's pages
// (`go run ./bench/fleet -serve DIR`): their URLs from the watcher config it writes, a
// conditional GET of a page's incidents.json, and a round over every page. It links
// nothing of watcher's, so that the floors' cost is a bare Go program's.
package pages

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
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

// Get reads page's incidents.json. Without an etag it wants a 200 and returns its body
// (nil when keep is false: it is read and dropped) and ETag; with one it sends
// If-None-Match and wants a 304. Any other answer is an error.
func Get(client *http.Client, page, etag string, keep bool) (body []byte, newETag string, err error) {
	u := page + "/api/v2/incidents.json"
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	if etag != "" {
		req.Header.Set("If-None-Match", etag)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if keep {
		body, err = io.ReadAll(resp.Body)
	} else {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	switch {
	case err != nil:
		return nil, "", err
	case etag == "" && resp.StatusCode == http.StatusOK:
		return body, resp.Header.Get("ETag"), nil
	case etag != "" && resp.StatusCode == http.StatusNotModified:
		return nil, etag, nil
	}
	return nil, "", fmt.Errorf("%s: %s", u, resp.Status)
}

// Each calls fn for every page, concurrency at a time, and returns the first error.
func Each(urls []string, concurrency int, fn func(i int, page string) error) error {
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	sem := make(chan struct{}, concurrency)
	for i, u := range urls {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = fn(i, u)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
