package syntax

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/robfig/cron/v3"
)

// cronParser is robfig/cron's standard parser: exactly 5 fields, or a descriptor.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// minEvery is the shortest @every interval accepted; cron would silently round anything
// shorter up to it.
const minEvery = time.Second

// ParseSchedule parses a source's schedule: a 5-field cron spec, evaluated in UTC unless it
// starts with CRON_TZ=<zone> (or TZ=<zone>), a descriptor such as @hourly, or @every with a
// duration of at least 1s (d for days works there too: "@every 1d").
//
// It never panics: robfig/cron v3.0.1 panics on some malformed specs ("CRON_TZ=UTC",
// "TZ="), so the parser runs inside a recover and a panic comes back as an error. The
// daemon uses this same function, so a schedule that passes the config check is exactly
// the one that gets scheduled.
func ParseSchedule(spec string) (cron.Schedule, error) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return nil, errors.New("empty schedule")
	}
	loc := time.UTC // cron specs are UTC, so DST never skips or doubles a poll
	if strings.HasPrefix(spec, "TZ=") || strings.HasPrefix(spec, "CRON_TZ=") {
		// Handled here rather than by cron, which panics when nothing follows the zone.
		i := strings.IndexFunc(spec, unicode.IsSpace)
		if i < 0 {
			return nil, fmt.Errorf("%s needs a schedule after it", spec)
		}
		name := spec[strings.IndexByte(spec, '=')+1 : i]
		if name == "" {
			return nil, errors.New("empty time zone after TZ=")
		}
		l, err := time.LoadLocation(name)
		if err != nil {
			return nil, fmt.Errorf("unknown time zone %q", name)
		}
		loc = l
		spec = strings.TrimSpace(spec[i:])
	}
	if f := strings.Fields(spec); f[0] == "@every" {
		// Handled here so that @every takes the config's durations (with d) and so that an
		// interval below 1s is an error instead of being rounded up by cron.Every.
		if len(f) != 2 {
			return nil, errors.New("@every takes one duration, e.g. @every 2m")
		}
		d, err := ParseDuration(f[1])
		if err != nil {
			return nil, err
		}
		if d < minEvery {
			return nil, fmt.Errorf("@every %s is below the minimum of %s", f[1], minEvery)
		}
		return cron.Every(d), nil
	}
	s, err := safeParse(cronParser.Parse, spec)
	if err != nil {
		if hint := scheduleHint(spec); hint != "" {
			return nil, fmt.Errorf("%v (did you mean %q?)", err, hint)
		}
		return nil, err
	}
	if ss, ok := s.(*cron.SpecSchedule); ok && ss.Location == time.Local {
		ss.Location = loc
	}
	return s, nil
}

// scheduleHint is the descriptor a schedule that cron cannot read was probably meant to
// be: "every 2m" → "@every 2m", "hourly" → "@hourly"; "" when none.
func scheduleHint(spec string) string {
	f := strings.Fields(spec)
	switch word := strings.ToLower(f[0]); {
	case word == "every" && len(f) == 2:
		if _, err := ParseDuration(f[1]); err == nil {
			return "@every " + f[1]
		}
	case len(f) == 1 && slices.Contains([]string{"yearly", "annually", "monthly", "weekly", "daily", "midnight", "hourly"}, word):
		return "@" + word
	}
	return ""
}

// fieldList matches the list of fields cron appends to a field-count error; it repeats the
// spec the config error already points at.
var fieldList = regexp.MustCompile(`(fields, found \d+): \[.*\]$`)

// safeParse runs parse inside a recover, turning a panic into an error.
func safeParse(parse func(string) (cron.Schedule, error), spec string) (s cron.Schedule, err error) {
	defer func() {
		if r := recover(); r != nil {
			s, err = nil, fmt.Errorf("invalid schedule %q", spec)
		}
	}()
	s, err = parse(spec)
	if err != nil {
		msg := fieldList.ReplaceAllString(err.Error(), "$1")
		return nil, errors.New(strings.Join(strings.Fields(msg), " "))
	}
	return s, nil
}
