//go:build !unix

package cputime

import "time"

// Process is not measured here (no getrusage): callers report 0.
func Process() time.Duration { return 0 }
