// Command floor measures what any Go program must spend on a round over a fleet of
// Statuspage pages before it archives anything: the conditional GETs alone (the floor of
// a warm round) and the GETs, a SHA-256 and a JSON decode of each incidents.json into
// the fields watcher reads (the floor of a cold round). It is the yardstick for the
// urlwatch ratios of docs/design.md §8 in BENCHMARKS.md: watcher's own round can only cost more.
//
// With -archive FILE a cold round also archives what watcher must keep of it, the least
// way (archive.go): the floor under the cold-round budget of issue 18 (at most 1.5× the
// fetch-hash-decode floor).
//
//	go run ./bench/fleet -serve /tmp/fleet -sources 500   # in another terminal
//	go build -o /tmp/floor ./bench/floor
//	/tmp/floor -config /tmp/fleet/watcher.yaml -mode cold -etags /tmp/etags   # then:
//	/tmp/floor -config /tmp/fleet/watcher.yaml -mode warm -etags /tmp/etags
//	/tmp/floor -config /tmp/fleet/watcher.yaml -mode cold -archive /tmp/floor.db -cpu-profile /tmp/floor.pprof
//
// It prints its own CPU (user+sys from getrusage, start-up included) at exit. It reads
// the sources' URLs from the lines `url: …` of a watcher config and links nothing of
// watcher's, so its start-up is a bare Go binary's.
package main

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/statuswatch/statuswatch/bench/internal/pages"
)

// The fields watcher's Statuspage adapter decodes (internal/fetch/statuspagev2), each
// with its name: go-json-experiment matches names case-sensitively, so a field without
// its tag would be skipped, not decoded.
type doc struct {
	Page *struct {
		Name string `json:"name"`
	} `json:"page"`
	Incidents *[]incident `json:"incidents"`
}

type incident struct {
	ID             string `json:"id"`
	Name           string `json:"name"`
	Status         string `json:"status"`
	Impact         string `json:"impact"`
	Shortlink      string `json:"shortlink"`
	CreatedAt      string `json:"created_at"`
	StartedAt      string `json:"started_at"`
	ResolvedAt     string `json:"resolved_at"`
	ScheduledFor   string `json:"scheduled_for"`
	ScheduledUntil string `json:"scheduled_until"`
	PostmortemBody string `json:"postmortem_body"`
	// Seen as a string, null or a boolean: kept as it came.
	PostmortemPublishedAt jsontext.Value `json:"postmortem_published_at"`
	Components            []component    `json:"components"`
	Updates               []update       `json:"incident_updates"`
}

type component struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type update struct {
	ID                 string `json:"id"`
	Status             string `json:"status"`
	Body               string `json:"body"`
	CreatedAt          string `json:"created_at"`
	DisplayAt          string `json:"display_at"`
	AffectedComponents []struct {
		Code string `json:"code"`
		Name string `json:"name"`
	} `json:"affected_components"`
}

func main() {
	var o options
	flag.StringVar(&o.config, "config", "", "watcher config whose `url:` lines name the pages")
	flag.StringVar(&o.mode, "mode", "cold", "cold: GET, hash and decode every incidents.json, saving ETags; warm: conditional GETs with the saved ETags")
	flag.StringVar(&o.etagFile, "etags", "/tmp/floor-etags", "where cold saves the ETags and warm reads them")
	flag.IntVar(&o.concurrency, "concurrency", 32, "requests at a time")
	flag.StringVar(&o.caFile, "ca-file", "", "PEM CA bundle added to the system roots, for HTTPS pages")
	flag.StringVar(&o.archive, "archive", "", "cold only: also archive the round into this bbolt `FILE` (made afresh): each raw body S2-compressed under its hash, each decoded incident once, one fdatasync at the end (the archiving floor)")
	flag.StringVar(&o.form, "form", "binary", "with -archive: the stored form of an incident, binary (length-prefixed fields) or json (the decoded fields re-encoded)")
	flag.IntVar(&o.batch, "batch", 32, "with -archive: pages per write transaction")
	cpuProfile := flag.String("cpu-profile", "", "write a CPU profile of the round into this `FILE`")
	flag.Parse()
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
	}
	err := run(o)
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	label := o.mode
	if o.archive != "" {
		label += " archiving (" + o.form + ")"
	}
	fmt.Printf("%s round: CPU %v (user %v, sys %v)\n", label, cpu.Round(time.Millisecond),
		time.Duration(syscall.TimevalToNsec(ru.Utime)).Round(time.Millisecond), time.Duration(syscall.TimevalToNsec(ru.Stime)).Round(time.Millisecond))
}

type options struct {
	config, mode, etagFile, caFile string
	concurrency                    int
	archive, form                  string
	batch                          int
}

func run(o options) error {
	urls, err := pages.Read(o.config)
	if err != nil {
		return err
	}
	etags := make([]string, len(urls))
	if o.mode == "warm" {
		if o.archive != "" {
			return fmt.Errorf("-archive is for -mode cold: a warm round of 304s archives nothing")
		}
		data, err := os.ReadFile(o.etagFile)
		if err != nil {
			return err
		}
		etags = strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
		if len(etags) != len(urls) {
			return fmt.Errorf("%s holds %d ETags for %d pages", o.etagFile, len(etags), len(urls))
		}
	}
	client := &http.Client{Timeout: 30 * time.Second}
	if o.caFile != "" {
		pemData, err := os.ReadFile(o.caFile)
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
	var a *archiver
	if o.archive != "" {
		if a, err = openArchive(o.archive, o.form, o.batch); err != nil {
			return err
		}
	}
	err = pages.Each(urls, o.concurrency, func(i int, u string) (err error) {
		etags[i], err = fetch(client, a, u, etags[i])
		return err
	})
	if a != nil {
		err = errors.Join(err, a.close())
	}
	if err != nil {
		return err
	}
	if o.mode == "cold" {
		return os.WriteFile(o.etagFile, []byte(strings.Join(etags, "\n")+"\n"), 0o644)
	}
	return nil
}

// fetch polls page: a cold poll (no etag) hashes and decodes the body and returns its
// ETag, and hands it to the archiver if there is one; a warm one wants a 304.
func fetch(client *http.Client, a *archiver, page, etag string) (string, error) {
	body, etag, err := pages.Get(client, page, etag, etag == "")
	if err != nil || body == nil {
		return etag, err
	}
	hash := sha256.Sum256(body)
	var d doc
	if err := json.Unmarshal(body, &d); err != nil {
		return "", fmt.Errorf("%s: %w", page, err)
	}
	if d.Incidents == nil || len(*d.Incidents) == 0 {
		return "", fmt.Errorf("%s: no incidents", page)
	}
	if a != nil {
		p, err := a.prepare(page, etag, hash, body, &d)
		if err != nil {
			return "", fmt.Errorf("%s: %w", page, err)
		}
		a.in <- p
	}
	return etag, nil
}
