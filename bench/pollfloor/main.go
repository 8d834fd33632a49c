// Command pollfloor measures what any Go program must spend to keep polling a fleet of
// HTTPS pages with conditional GETs, the way the daemon does, before it does anything of
// its own (no schedule, archive, metrics or logs): the floor under the daemon's budgets of
// docs/design.md §8 for 10,000 sources every minute.
//
// It polls every page once (a full handshake and a 200 each), once more on a new
// connection (a resumed session and a 304: connections that carried a big body keep
// their grown buffers, and the daemon closes them), then for -duration polls
// them in turn at -rate polls a second with If-None-Match (304s) and prints its own CPU
// per poll and its memory: in -mode kept every connection stays open between polls (the
// client keeps one per host, as many as there are hosts), in -mode resumed each poll opens
// a new connection and resumes its TLS session (what a client pays where servers close
// idle connections, or where it keeps fewer connections than it has hosts), and in -mode
// mixed the first -keep hosts keep theirs and the others resume, the least a client
// pays that keeps only -keep connections, as the daemon does to bound its memory.
//
//	go run ./bench/fleet -tls -serve /tmp/fleet -sources 10000      # in another terminal
//	go run ./bench/pollfloor -config /tmp/fleet/watcher.yaml -ca-file /tmp/fleet/fleet-ca.pem -mode mixed -wake 1s
//	go run ./bench/pollfloor -config /tmp/fleet/watcher.yaml -ca-file /tmp/fleet/fleet-ca.pem -mode resumed -wake 1s
//
// -wake 1s starts the polls of each second together, as the daemon's do: with a tick for
// every poll, the wakes of an otherwise idle process cost more than the polls on kept
// connections.
//
// It links nothing of watcher's: the transport is net/http's own, with a session cache
// as large as the fleet, HTTP/2 where offered, and in the modes above the daemon's
// cheapest choices: X25519 alone and HTTP/1 buffers of 2 and 1 KB.
//
// With -reconnect N it serves its own hosts instead, from a child process (serve.go), and
// measures N runs of warm polls that reconnect because the servers close idle
// connections (plain HTTP; HTTPS resuming its TLS session; the same with X25519 alone;
// over HTTP/1.1) beside polls on kept connections: the floor under the budget "a warm
// HTTPS poll at most 2× a warm plain one" where servers close (reconnect.go).
//
//	go run ./bench/pollfloor -reconnect 5 -hosts 2000
package main

import (
	"crypto/tls"
	"crypto/x509"
	"flag"
	"fmt"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/statuswatch/statuswatch/bench/internal/pages"
	"github.com/statuswatch/statuswatch/internal/cputime"
)

func main() {
	config := flag.String("config", "", "watcher config whose `url:` lines name the pages")
	caFile := flag.String("ca-file", "", "PEM CA bundle of the pages' certificates")
	mode := flag.String("mode", "kept", "kept: one connection kept per host; resumed: a new connection per poll, resuming the TLS session; mixed: -keep hosts kept, the others resumed")
	keep := flag.Int("keep", 1024, "with -mode mixed: the hosts whose connections are kept (the daemon keeps 1,024)")
	rate := flag.Float64("rate", 166.7, "polls a second in the measured phase (10,000 sources every minute: 166.7)")
	duration := flag.Duration("duration", time.Minute, "the measured phase")
	wake := flag.Duration("wake", 0, "start the polls in groups, one group every `interval` (the daemon: 1s), instead of each on its own tick")
	h1 := flag.Bool("http1", false, "HTTP/1.1 only (default: HTTP/2 where offered)")
	heapFile := flag.String("heap-profile", "", "write a heap profile at the end into this file")
	reconnectRuns := flag.Int("reconnect", 0, "instead: serve -hosts hosts from a child process and measure, this many runs, warm polls that reconnect where the servers close (plain, HTTPS resumed, X25519 alone, HTTP/1.1, both) and on kept connections (plain, HTTPS); -duration per phase (default here 8s)")
	hosts := flag.Int("hosts", 2000, "with -reconnect: the hosts served")
	serverIdle := flag.Duration("server-idle", 2*time.Second, "with -reconnect: the servers that close, close connections idle this long")
	serveChildFlag := flag.Bool("serve-child", false, "internal to -reconnect: be its server child")
	serveTLS := flag.Bool("serve-tls", false, "internal to -reconnect")
	serveDir := flag.String("serve-dir", "", "internal to -reconnect")
	flag.Parse()
	var err error
	switch {
	case *serveChildFlag:
		err = serveChild(*hosts, *serveTLS, *serverIdle, *serveDir)
	case *reconnectRuns > 0:
		d := 8 * time.Second
		flag.Visit(func(f *flag.Flag) {
			if f.Name == "duration" {
				d = *duration
			}
		})
		err = reconnect(os.Stdout, *hosts, *reconnectRuns, *rate, d, *serverIdle)
	default:
		err = run(*config, *caFile, *mode, *keep, *rate, *duration, *wake, *h1, *heapFile)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pollfloor:", err)
		os.Exit(1)
	}
}

func run(config, caFile, mode string, keep int, rate float64, duration, wake time.Duration, h1 bool, heapFile string) error {
	urls, err := pages.Read(config)
	if err != nil {
		return err
	}
	pool := x509.NewCertPool()
	if caFile != "" {
		pemData, err := os.ReadFile(caFile)
		if err != nil {
			return err
		}
		pool.AppendCertsFromPEM(pemData)
	}
	switch mode {
	case "kept":
		keep = len(urls)
	case "resumed":
		keep = 0
	case "mixed":
		keep = min(max(keep, 0), len(urls))
	default:
		return fmt.Errorf("-mode %q: kept, resumed or mixed", mode)
	}
	// Two transports, one session cache: the first keep hosts go through the one that
	// keeps connections, the others through the one that opens a new one every poll, so
	// no kept connection is ever pushed out by another host's (the best case for a pool
	// of keep connections). In mixed mode the connections not kept are HTTP/1.1, as the
	// daemon's (an HTTP/2 client connection costs more to set up than it saves on one
	// request).
	sessions := tls.NewLRUClientSessionCache(len(urls))
	tr := newTransport(pool, sessions, max(keep, 1), h1, false)
	trNew := newTransport(pool, sessions, 1, h1 || mode == "mixed", true)
	for _, t := range []*http.Transport{tr, trNew} {
		// The cheapest handshake and buffers, as the daemon's (internal/fetch): X25519
		// alone rather than Go's default hybrid post-quantum key share first, and HTTP/1
		// buffers of 2 and 1 KB.
		t.TLSClientConfig.CurvePreferences = []tls.CurveID{tls.X25519}
		t.ReadBufferSize, t.WriteBufferSize = 2<<10, 1<<10
	}
	kept := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	reconnecting := &http.Client{Transport: trNew, Timeout: 30 * time.Second}
	clients := make([]*http.Client, len(urls))
	for i := range clients {
		clients[i] = reconnecting
		if i < keep {
			clients[i] = kept
		}
	}

	runtime.GC()
	base := heapInUse()
	etags := make([]string, len(urls))
	if err := pages.Each(urls, 32, func(i int, u string) (err error) {
		_, etags[i], err = pages.Get(clients[i], u, "", false)
		return err
	}); err != nil {
		return err
	}
	// The 200s grew each connection's buffers for good (a 198 KB body): drop those
	// connections, as the daemon does, and open new ones with a round of 304s.
	tr.CloseIdleConnections()
	trNew.CloseIdleConnections()
	if err := pages.Each(urls, 32, func(i int, u string) error {
		_, _, err := pages.Get(clients[i], u, etags[i], false)
		return err
	}); err != nil {
		return err
	}
	runtime.GC()
	afterCold := heapInUse()

	polls, failed, cpu, wall := measure(clients, urls, etags, rate, duration, wake)
	runtime.GC()
	end := heapInUse()

	fmt.Printf("pollfloor: %d hosts, mode %s (%d kept), HTTP/1.1 only %v, %d polls in %v (%.1f/s), %d failed\n",
		len(urls), mode, keep, h1, polls, wall.Round(time.Millisecond), float64(polls)/wall.Seconds(), failed)
	fmt.Printf("  CPU per poll %.3f ms, %.2f%% of one core\n", float64(cpu)/float64(polls)/1e6, 100*cpu.Seconds()/wall.Seconds())
	fmt.Printf("  heap in use: %s before any poll, %s after a first round of 200s and one of 304s on new connections (%s a host), %s at the end (%s a host)\n",
		mib(base), mib(afterCold), kib((afterCold-base)/int64(len(urls))), mib(end), kib((end-base)/int64(len(urls))))
	fmt.Printf("  VmHWM %s, goroutines at the end %d\n", vm("VmHWM"), runtime.NumGoroutine())
	if heapFile == "" {
		return nil
	}
	f, err := os.Create(heapFile)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.WriteHeapProfile(f)
}

// newTransport is net/http's transport as the daemon configures it: the session cache
// given (as large as the fleet), HTTP/2 where offered (unless h1), one idle connection
// kept per host, hosts in all, for as long as the server allows (unless reconnect: a new
// connection for every poll).
func newTransport(pool *x509.CertPool, sessions tls.ClientSessionCache, hosts int, h1, reconnect bool) *http.Transport {
	tr := &http.Transport{
		TLSClientConfig: &tls.Config{
			RootCAs:            pool,
			ClientSessionCache: sessions,
		},
		ForceAttemptHTTP2:   !h1,
		MaxIdleConns:        hosts,
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     time.Hour,
		DisableKeepAlives:   reconnect,
		// The daemon's bounds (internal/fetch): smaller windows and header tables than
		// the defaults, for less memory a connection.
		HTTP2: &http.HTTP2Config{
			MaxReceiveBufferPerConnection: 1 << 20,
			MaxReceiveBufferPerStream:     1 << 20,
			MaxDecoderHeaderTableSize:     4 << 10,
			MaxEncoderHeaderTableSize:     4 << 10,
		},
	}
	if h1 {
		tr.TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{}
	}
	return tr
}

// measure polls the pages in turn, each through its client, with If-None-Match for
// duration, polls started at rate a second and at most 64 in flight, and returns the
// polls, those that failed, and this process's CPU and the wall time over them. With
// wake > 0 the polls start in groups, one every wake (rate × wake polls each), as the
// daemon's do (its sources' offsets are whole seconds, so those that share a second
// start in one wake); otherwise each poll has a tick of its own.
func measure(clients []*http.Client, urls, etags []string, rate float64, duration, wake time.Duration) (polls, failed int, cpu, wall time.Duration) {
	every, perTick := time.Duration(float64(time.Second)/rate), 1.0
	if wake > 0 {
		every, perTick = wake, rate*wake.Seconds()
	}
	cpu0, start := cputime.Process(), time.Now()
	tick := time.NewTicker(every)
	defer tick.Stop()
	var wg sync.WaitGroup
	var mu sync.Mutex
	inflight := make(chan struct{}, 64)
	due := 0.0
	for time.Since(start) < duration {
		<-tick.C
		for due += perTick; due >= 1; due-- {
			i := polls % len(urls)
			polls++
			inflight <- struct{}{}
			wg.Go(func() {
				defer func() { <-inflight }()
				if _, _, err := pages.Get(clients[i], urls[i], etags[i], false); err != nil {
					mu.Lock()
					failed++
					mu.Unlock()
				}
			})
		}
	}
	wg.Wait()
	return polls, failed, cputime.Process() - cpu0, time.Since(start)
}

func heapInUse() int64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	// Goroutine stacks too: each kept HTTP connection has one or two.
	return int64(m.HeapInuse + m.StackInuse)
}

// vm is a line of /proc/self/status, e.g. VmHWM.
func vm(key string) string {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "?"
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			f := strings.Fields(v)
			if n, err := strconv.ParseUint(f[0], 10, 64); err == nil {
				return mib(int64(n) << 10)
			}
		}
	}
	return "?"
}

func mib(b int64) string { return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20)) }
func kib(b int64) string { return fmt.Sprintf("%.1f KiB", float64(b)/(1<<10)) }
