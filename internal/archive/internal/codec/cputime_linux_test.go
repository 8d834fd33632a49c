package codec

import (
	"syscall"
	"time"
)

// processCPU is the user and system CPU time the process has used so far: a figure of a
// benchmark that the machine's load does not inflate as it does wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
