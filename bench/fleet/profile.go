package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/config"
	"github.com/statuswatch/statuswatch/internal/cputime"
	"github.com/statuswatch/statuswatch/internal/daemon"
	"github.com/statuswatch/statuswatch/internal/fetch"
)

// profile runs the poll rounds of `watcher poll` in this process, as cmd/watcher wires
// them (config.Load, archive.Open, fetch.NewClient(daemon.ClientOptions), Poller.Round;
// outbox delivery left out), with a CPU profile of each: cold.pprof, warm.pprof and
// changed.pprof in dir. Each round gets a new Poller and client, as a new process would.
// Read them with `go tool pprof -top dir/cold.pprof`. Beside each, name.allocs.pprof
// holds the allocations so far.
func profile(ctx context.Context, o options, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "statuswatch-fleet-profile-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	b := &bench{o: o, tmp: tmp, log: os.Stderr}
	fleet, err := b.startFleet(o.Sources)
	if err != nil {
		return err
	}
	defer fleet.Close()
	path, err := b.writeWatcherConfig(tmp, o.Sources, "@every 2m")
	if err != nil {
		return err
	}
	cfg, err := config.Load(path)
	if err != nil {
		return err
	}
	store, err := archive.Open(cfg.Database, archive.Options{})
	if err != nil {
		return err
	}
	defer store.Close()
	sources := make([]*config.Source, len(cfg.Sources))
	for i := range cfg.Sources {
		sources[i] = &cfg.Sources[i]
	}

	round := func(name string) error {
		client, err := fetch.NewClient(daemon.ClientOptions(cfg))
		if err != nil {
			return err
		}
		p := &daemon.Poller{Store: store, Client: client, OnFirstPoll: cfg.OnFirstPoll}
		f, err := os.Create(filepath.Join(dir, name+".pprof"))
		if err != nil {
			return err
		}
		defer f.Close()
		cpu0 := cputime.Process()
		start := time.Now()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		results := p.Round(ctx, sources, cfg.HTTP.Concurrency)
		pprof.StopCPUProfile()
		// This process also serves the pages: its CPU includes theirs.
		fmt.Fprintf(os.Stderr, "%s: wall %v, CPU of this process (pages included) %v -> %s\n",
			name, time.Since(start).Round(time.Millisecond), (cputime.Process() - cpu0).Round(time.Millisecond), f.Name())
		for _, r := range results {
			if r.Err != nil {
				return fmt.Errorf("%s: %s: %w", name, r.Source, r.Err)
			}
		}
		// Allocations since the process started (the pages' rendering included):
		// `go tool pprof -sample_index alloc_space -diff_base` between two rounds.
		mf, err := os.Create(filepath.Join(dir, name+".allocs.pprof"))
		if err != nil {
			return err
		}
		defer mf.Close()
		return pprof.Lookup("allocs").WriteTo(mf, 0)
	}
	if err := round("cold"); err != nil {
		return err
	}
	if err := round("warm"); err != nil {
		return err
	}
	for i := range o.Changes {
		fleet.Change(i % o.Sources)
	}
	return round("changed")
}

// serve serves o.Sources pages and writes configs for them into dir until ctx ends.
func serve(ctx context.Context, o options, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b := &bench{o: o, tmp: dir, log: os.Stderr}
	fleet, err := b.startFleet(o.Sources)
	if err != nil {
		return err
	}
	defer fleet.Close()
	path, err := b.writeWatcherConfig(dir, o.Sources, o.Schedule)
	if err != nil {
		return err
	}
	uw, err := newUrlwatchRun("urlwatch", filepath.Join(dir, "urlwatch"), fleet, o.Sources)
	if err != nil {
		return err
	}
	uw.caFile = b.caFile
	fmt.Fprintf(os.Stderr, "serving %d pages until Ctrl-C\n  watcher poll -config %s\n  urlwatch --urls %s --config %s --cache %s\n", o.Sources, path, uw.urls, uw.config, uw.cache)
	<-ctx.Done()
	return nil
}
