package main

import (
	"context"
	"fmt"

	"github.com/statuswatch/statuswatch/internal/config"
)

// checkProbe detects each source's provider. Detection comes with the platforms issue;
// until then it says so rather than pretend.
func checkProbe(_ context.Context, e *env, _ *config.Config) int {
	fmt.Fprintln(e.stderr, "watcher check -probe: provider detection is not implemented yet")
	return exitUsage
}
