package archive

import (
	"time"

	"github.com/statuswatch/statuswatch/internal/cputime"
)

// processCPU is cputime.Process by the name the search benchmarks call it.
func processCPU() time.Duration { return cputime.Process() }
