// Command floor measures what any Go program must spend on a round over a fleet of
// Statuspage pages before it archives anything: the conditional GETs alone (the floor of
// a warm round) and the GETs, a SHA-256 and a JSON decode of each incidents.json into
// the fields watcher reads (the floor of a cold round). It is the yardstick for the
// urlwatch ratios of docs/design.md §8 in BENCHMARKS.md: watcher's own round can only cost more.
//
//	go run ./bench/fleet -serve /tmp/fleet -sources 500   # in another terminal
//	go build -o /tmp/floor ./bench/floor
//	/tmp/floor -config /tmp/fleet/watcher.yaml -mode cold -etags /tmp/etags   # then:
//	/tmp/floor -config /tmp/fleet/watcher.yaml -mode warm -etags /tmp/etags
//
// It prints its own CPU (user+sys from getrusage, start-up included) at exit. It reads
// the sources' URLs from the lines `url: …` of a watcher config and links nothing of
// watcher's, so its start-up is a bare Go binary's.
package main

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/statuswatch/statuswatch/bench/internal/pages"
)

// The fields watcher's Statuspage adapter decodes (internal/fetch/statuspagev2).
type doc struct {
	Page      *struct{ Name string } `json:"page"`
	Incidents *[]struct {
		ID, Name, Status, Impact, Shortlink string
		CreatedAt                           string `json:"created_at"`
		StartedAt                           string `json:"started_at"`
		ResolvedAt                          string `json:"resolved_at"`
		ScheduledFor                        string `json:"scheduled_for"`
		ScheduledUntil                      string `json:"scheduled_until"`
		PostmortemBody                      string `json:"postmortem_body"`
		Components                          []struct{ ID, Name string }
		Updates                             []struct {
			ID, Status, Body string
			CreatedAt        string `json:"created_at"`
			DisplayAt        string `json:"display_at"`
		} `json:"incident_updates"`
	} `json:"incidents"`
}

func main() {
	config := flag.String("config", "", "watcher config whose `url:` lines name the pages")
	mode := flag.String("mode", "cold", "cold: GET, hash and decode every incidents.json, saving ETags; warm: conditional GETs with the saved ETags")
	etagFile := flag.String("etags", "/tmp/floor-etags", "where cold saves the ETags and warm reads them")
	concurrency := flag.Int("concurrency", 32, "requests at a time")
	caFile := flag.String("ca-file", "", "PEM CA bundle added to the system roots, for HTTPS pages")
	flag.Parse()
	if err := run(*config, *mode, *etagFile, *caFile, *concurrency); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	fmt.Printf("%s round: CPU %v (user %v, sys %v)\n", *mode, cpu.Round(time.Millisecond),
		time.Duration(syscall.TimevalToNsec(ru.Utime)).Round(time.Millisecond), time.Duration(syscall.TimevalToNsec(ru.Stime)).Round(time.Millisecond))
}

func run(config, mode, etagFile, caFile string, concurrency int) error {
	urls, err := pages.Read(config)
	if err != nil {
		return err
	}
	etags := make([]string, len(urls))
	if mode == "warm" {
		data, err := os.ReadFile(etagFile)
		if err != nil {
			return err
		}
		etags = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(etags) != len(urls) {
			return fmt.Errorf("%s holds %d ETags for %d pages", etagFile, len(etags), len(urls))
		}
	}
	client := &http.Client{Timeout: 30 * time.Second}
	if caFile != "" {
		pemData, err := os.ReadFile(caFile)
		if err != nil {
			return err
		}
		pool, err := x509.SystemCertPool()
		if err != nil {
			pool = x509.NewCertPool()
		}
		pool.AppendCertsFromPEM(pemData)
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{RootCAs: pool}
		client.Transport = tr
	}
	if err := pages.Each(urls, concurrency, func(i int, u string) (err error) {
		etags[i], err = fetch(client, u, etags[i])
		return err
	}); err != nil {
		return err
	}
	if mode == "cold" {
		return os.WriteFile(etagFile, []byte(strings.Join(etags, "\n")+"\n"), 0o644)
	}
	return nil
}

// fetch polls page: a cold poll (no etag) hashes and decodes the body and returns its
// ETag, a warm one wants a 304.
func fetch(client *http.Client, page, etag string) (string, error) {
	body, etag, err := pages.Get(client, page, etag, etag == "")
	if err != nil || body == nil {
		return etag, err
	}
	sha256.Sum256(body)
	var d doc
	if err := json.Unmarshal(body, &d); err != nil {
		return "", fmt.Errorf("%s: %w", page, err)
	}
	if d.Incidents == nil || len(*d.Incidents) == 0 {
		return "", fmt.Errorf("%s: no incidents", page)
	}
	return etag, nil
}
