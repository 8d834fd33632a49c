//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process is the user and system CPU time of every thread of the process so far (GC and
// both ends of a loopback exchange included), or 0 if the kernel does not say.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
}
