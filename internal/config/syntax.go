package config

import (
	"time"

	"github.com/robfig/cron/v3"

	"github.com/statuswatch/statuswatch/internal/config/syntax"
)

// ParseDuration parses a Go duration that may also use d for days, as every duration in
// the config takes them (syntax.ParseDuration).
func ParseDuration(s string) (time.Duration, error) { return syntax.ParseDuration(s) }

// ParseSize parses a byte size, plain or with an SI or IEC unit (syntax.ParseSize).
func ParseSize(s string) (int64, error) { return syntax.ParseSize(s) }

// ParseSchedule parses a source's schedule (syntax.ParseSchedule). The daemon uses this
// same function, so a schedule that passes the config check is exactly the one that
// gets scheduled.
func ParseSchedule(spec string) (cron.Schedule, error) { return syntax.ParseSchedule(spec) }
