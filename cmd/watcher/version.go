package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
)

// Set at build time with -ldflags "-X main.version=… -X main.commit=…".
var (
	version = "dev"
	commit  = ""
)

func runVersion(_ context.Context, e *env, args []string) int {
	fs := newFlags(e, "version", "", "Prints the version, commit and Go version.")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	c := commit
	if c == "" {
		if info, ok := debug.ReadBuildInfo(); ok {
			for _, s := range info.Settings {
				if s.Key == "vcs.revision" {
					c = s.Value
				}
			}
		}
	}
	if c == "" {
		c = "unknown"
	}
	fmt.Fprintf(e.stdout, "watcher %s (commit %s, %s)\n", version, c, runtime.Version())
	return exitOK
}
