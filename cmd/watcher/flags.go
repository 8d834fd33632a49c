package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/statuswatch/statuswatch/internal/config"
)

// newFlags makes a command's flag set whose -h prints its synopsis and flags.
func newFlags(e *env, name, args, summary string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() {
		fmt.Fprintf(e.stderr, "usage: watcher %s [flags] %s\n\n%s\n\n", name, args, summary)
		fs.PrintDefaults()
	}
	return fs
}

// parse parses flags; ok is false when the command should exit with code.
func parse(fs *flag.FlagSet, args []string) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK, false
		}
		return exitUsage, false
	}
	return 0, true
}

// configFlag adds -config with the default chain of SPEC §6.
func configFlag(fs *flag.FlagSet) *string {
	return fs.String("config", "", "config file (default: $WATCHER_CONFIG, else /etc/watcher/config.yaml, else ./config.yaml)")
}

// loadConfig loads the config named by -config or the default chain, printing a bad
// config's one-line error.
func loadConfig(e *env, path string) (*config.Config, bool) {
	if path == "" {
		path = config.DefaultPath()
	}
	config.Version = version // for the default User-Agent
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "error: %v\n", err)
		return nil, false
	}
	return cfg, true
}
