package main

import (
	"context"
	"fmt"

	"github.com/statuswatch/statuswatch/internal/demo"
)

func runDemo(ctx context.Context, e *env, args []string) int {
	fs := newFlags(e, "demo", "", "Offline demo: a built-in local status page replays a recorded incident (new → updates → a silent edit → resolved → postmortem) through the whole pipeline into a temporary archive, with console notifications and the UI. Runs until Ctrl-C.")
	listen := fs.String("listen", "127.0.0.1:8080", "UI address (the next free port when taken)")
	speed := fs.Float64("speed", 1, "replay speed: a step every 5s ÷ speed")
	if code, ok := fs.parse(args); !ok {
		return code
	}
	if *speed <= 0 {
		fmt.Fprintln(e.stderr, "watcher demo: -speed must be > 0")
		return exitUsage
	}
	if err := demo.Run(ctx, demo.Options{Listen: *listen, Speed: *speed, Stdout: e.stdout, Stderr: e.stderr}); err != nil {
		return e.fail(err)
	}
	return exitOK
}
