package main

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"time"
)

// servePprof serves Go's profiles (/debug/pprof/, e.g. `go tool pprof
// http://127.0.0.1:6061/debug/pprof/heap`) on the loopback address in $WATCHER_PPROF, for
// measuring the daemon (BENCHMARKS.md); unset, nothing is served. Only a loopback
// address is accepted: profiles show the daemon's memory, secrets included.
func servePprof(log *slog.Logger) {
	addr := os.Getenv("WATCHER_PPROF")
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		log.Error("WATCHER_PPROF must be a loopback host:port; not serving profiles", "addr", addr)
		return
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Error("serve profiles", "err", err)
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	log.Info("serving profiles", "addr", ln.Addr())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
}
