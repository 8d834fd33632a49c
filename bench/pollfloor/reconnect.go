package main

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/statuswatch/statuswatch/bench/internal/pages"
	"github.com/statuswatch/statuswatch/internal/cputime"
)

// -reconnect: the floor under "a daemon's warm HTTPS poll costs at most 2× a warm
// plain-HTTP poll" where the servers close idle connections, so that every poll
// reconnects. Each phase polls the same hosts (its own server child, see serve.go), warm
// (every answer a 304), with net/http alone, and counts this process's CPU only, as the
// daemon's figures do. The ratio of "HTTPS, server closes, resumed" to "plain, server
// closes" is that floor.

// phase is one way of polling the hosts.
type phase struct {
	name   string
	tls    bool
	closes bool // the servers close connections idle for -server-idle; else they keep them an hour
	x25519 bool // the client offers X25519 alone, not Go's default X25519MLKEM768 first
	h1     bool // HTTP/1.1 only
}

var phases = []phase{
	{name: "plain HTTP, server closes: a new TCP connection per poll", closes: true},
	{name: "HTTPS, server closes: a new connection per poll, TLS session resumed (HTTP/2)", tls: true, closes: true},
	{name: "the same, X25519 alone as the key exchange", tls: true, closes: true, x25519: true},
	{name: "the same as HTTPS resumed, HTTP/1.1", tls: true, closes: true, h1: true},
	{name: "the same, X25519 alone and HTTP/1.1 (the daemon's connections it does not keep)", tls: true, closes: true, x25519: true, h1: true},
	{name: "plain HTTP, connection kept", closes: false},
	{name: "HTTPS, connection kept (HTTP/2)", tls: true, closes: false},
}

// phaseResult is one phase of one run.
type phaseResult struct {
	polls, failed int
	cpu, wall     time.Duration // this process's CPU over the polls and their closing, the polls' span
	server        serveStats    // the server child's, over the same
}

func (r phaseResult) perPoll() float64 { return float64(r.cpu) / float64(max(r.polls, 1)) / 1e3 }
func (r phaseResult) serverPerPoll() float64 {
	return float64(r.server.cpu) / float64(max(r.polls, 1)) / 1e3
}

// reconnect runs every phase runs times (measureAll) and prints a table of medians on w.
func reconnect(w io.Writer, hosts, runs int, rate float64, duration, serverIdle time.Duration) error {
	results, err := measureAll(hosts, runs, rate, duration, serverIdle)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "| %d hosts, warm polls (304) at %.1f/s, %d runs | client CPU per poll, median (range) | ÷ plain, server closes | server child's CPU per poll | new connections per poll | TLS resumed | protocol |\n", hosts, rate, runs)
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for i, ph := range phases {
		var per, ratio, srv []float64
		conns, resumed, polls, h2 := 0, 0, 0, 0
		for r, res := range results[i] {
			per = append(per, res.perPoll())
			// Paired within the run: the phases of a run ran within two minutes.
			ratio = append(ratio, res.perPoll()/results[0][r].perPoll())
			srv = append(srv, res.serverPerPoll())
			conns, resumed, polls, h2 = conns+res.server.conns, resumed+res.server.resumed, polls+res.polls, h2+res.server.h2
		}
		proto := "HTTP/1.1"
		if h2 > 0 {
			proto = "HTTP/2"
		}
		tlsResumed := "—"
		if ph.tls {
			tlsResumed = fmt.Sprintf("%.0f%%", 100*float64(resumed)/float64(max(conns, 1)))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.0f µs | %.2f | %s | %s |\n", ph.name, stat(per, "µs", 0), stat(ratio, "×", 2), median(srv),
			float64(conns)/float64(max(polls, 1)), tlsResumed, proto)
	}
	return nil
}

// measureAll runs every phase runs times, the order reversed every other run, and
// returns the results by phase, then run.
func measureAll(hosts, runs int, rate float64, duration, serverIdle time.Duration) ([][]phaseResult, error) {
	// Each host must be polled less often than its server closes, or polls find the
	// connection still open.
	if pass := time.Duration(float64(hosts) / rate * float64(time.Second)); pass <= serverIdle {
		return nil, fmt.Errorf("%d hosts at %.1f polls a second: each is polled every %v, within the servers' idle timeout %v; use more hosts or a shorter -server-idle", hosts, rate, pass.Round(time.Millisecond), serverIdle)
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	results := make([][]phaseResult, len(phases))
	for r := range runs {
		order := make([]int, len(phases))
		for i := range order {
			order[i] = i
		}
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			res, err := runPhase(self, phases[i], hosts, rate, duration, serverIdle)
			if err != nil {
				return nil, fmt.Errorf("run %d, %s: %w", r+1, phases[i].name, err)
			}
			s := res.server
			fmt.Fprintf(os.Stderr, "run %d: %s: %d polls, client %.0f µs a poll, server %.0f µs; %d connections, %d handshakes (%d resumed), %d HTTP/1.1 and %d HTTP/2 requests\n",
				r+1, phases[i].name, res.polls, res.perPoll(), res.serverPerPoll(), s.conns, s.handshakes, s.resumed, s.h1, s.h2)
			results[i] = append(results[i], res)
		}
	}
	return results, nil
}

// runPhase starts the server child for ph, makes the client's first connection to every
// host (a full handshake under TLS: the session it resumes later), lets the servers close
// those where they close, then polls and measures.
func runPhase(self string, ph phase, hosts int, rate float64, duration, serverIdle time.Duration) (phaseResult, error) {
	dir, err := os.MkdirTemp("", "pollfloor")
	if err != nil {
		return phaseResult{}, err
	}
	defer os.RemoveAll(dir)
	idle := time.Hour
	if ph.closes {
		idle = serverIdle
	}
	child := exec.Command(self, "-serve-child", "-hosts", strconv.Itoa(hosts), "-serve-tls="+strconv.FormatBool(ph.tls), "-server-idle", idle.String(), "-serve-dir", dir)
	child.Stderr = os.Stderr
	stdin, err := child.StdinPipe()
	if err != nil {
		return phaseResult{}, err
	}
	stdout, err := child.StdoutPipe()
	if err != nil {
		return phaseResult{}, err
	}
	if err := child.Start(); err != nil {
		return phaseResult{}, err
	}
	defer child.Wait()
	defer stdin.Close() // the child's end
	out := bufio.NewReader(stdout)
	if line, err := out.ReadString('\n'); err != nil || line != "ready\n" {
		return phaseResult{}, fmt.Errorf("server child: %q, %v", line, err)
	}
	stats := func() (serveStats, error) {
		var s serveStats
		var cpu int64
		if _, err := io.WriteString(stdin, "stats\n"); err != nil {
			return s, err
		}
		_, err := fmt.Fscanln(out, &cpu, &s.conns, &s.handshakes, &s.resumed, &s.h1, &s.h2)
		s.cpu = time.Duration(cpu)
		return s, err
	}

	urls, err := pages.Read(filepath.Join(dir, "hosts.yaml"))
	if err != nil {
		return phaseResult{}, err
	}
	pool := x509.NewCertPool()
	if ph.tls {
		pemData, err := os.ReadFile(filepath.Join(dir, "ca.pem"))
		if err != nil {
			return phaseResult{}, err
		}
		pool.AppendCertsFromPEM(pemData)
	}
	// Keep-alive on, as the daemon: where the server closes, its close ends the connection.
	tr := newTransport(pool, tls.NewLRUClientSessionCache(hosts), hosts, ph.h1, false)
	if ph.x25519 {
		tr.TLSClientConfig.CurvePreferences = []tls.CurveID{tls.X25519}
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	etags := make([]string, hosts)
	for i := range etags {
		etags[i] = pageETag
	}
	if err := pages.Each(urls, 32, func(i int, u string) error {
		_, _, err := pages.Get(client, u, etags[i], false)
		return err
	}); err != nil {
		return phaseResult{}, err
	}
	// Where the servers close, let them close the first connections before measuring,
	// and after the polls let them close the measured ones, so that the window counts one
	// close per poll, as the daemon's steady state does. Where they keep connections the
	// wait costs nothing.
	tail := serverIdle + 500*time.Millisecond
	time.Sleep(tail)
	before, err := stats()
	if err != nil {
		return phaseResult{}, err
	}
	cpu0 := cputime.Process()
	var res phaseResult
	res.polls, res.failed, _, res.wall = measure(slices.Repeat([]*http.Client{client}, len(urls)), urls, etags, rate, duration, 0)
	time.Sleep(tail)
	res.cpu = cputime.Process() - cpu0
	res.server, err = stats()
	res.server.cpu -= before.cpu // the child's CPU is its total since start
	if res.failed > 0 {
		err = fmt.Errorf("%d of %d polls failed", res.failed, res.polls)
	}
	return res, err
}

func median(xs []float64) float64 {
	s := slices.Sorted(slices.Values(xs))
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}

// stat is a median and, over more than one run, its range.
func stat(xs []float64, unit string, prec int) string {
	m := fmt.Sprintf("**%.*f %s**", prec, median(xs), unit)
	if unit == "×" {
		m = fmt.Sprintf("**%.*f×**", prec, median(xs))
	}
	if len(xs) < 2 {
		return m
	}
	return fmt.Sprintf("%s (%.*f–%.*f)", m, prec, slices.Min(xs), prec, slices.Max(xs))
}
