package syntax

import (
	"errors"
	"testing"
	"time"

	"github.com/robfig/cron/v3"
)

func TestParseSchedule(t *testing.T) {
	base := time.Date(2026, 3, 29, 0, 30, 0, 0, time.UTC) // a DST change day in Europe
	tests := []struct {
		spec string
		next time.Time // first run after base
	}{
		{"*/2 * * * *", base.Add(2 * time.Minute)},
		{"0 * * * *", base.Add(30 * time.Minute)},
		{"  0 9 * * *  ", time.Date(2026, 3, 29, 9, 0, 0, 0, time.UTC)},
		{"@hourly", base.Add(30 * time.Minute)},
		{"@daily", time.Date(2026, 3, 30, 0, 0, 0, 0, time.UTC)},
		{"@every 2m", base.Add(2 * time.Minute)},
		{"@every 1s", base.Add(time.Second)},
		{"@every 1d", base.Add(24 * time.Hour)},
		{"@every\t90s", base.Add(90 * time.Second)},
		{"CRON_TZ=UTC 0 9 * * *", time.Date(2026, 3, 29, 9, 0, 0, 0, time.UTC)},
		{"TZ=UTC 0 9 * * *", time.Date(2026, 3, 29, 9, 0, 0, 0, time.UTC)},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			s, err := ParseSchedule(tt.spec)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if got := s.Next(base); !got.Equal(tt.next) {
				t.Errorf("Next(%v): got %v, want %v", base, got, tt.next)
			}
		})
	}

	t.Run("UTC even when the local zone is not", func(t *testing.T) {
		s, err := ParseSchedule("0 9 * * *")
		if err != nil {
			t.Fatal(err)
		}
		spec, ok := s.(*cron.SpecSchedule)
		if !ok {
			t.Fatalf("got %T, want *cron.SpecSchedule", s)
		}
		if spec.Location != time.UTC {
			t.Errorf("got location %v, want UTC", spec.Location)
		}
	})

	bad := []struct {
		spec, want string
	}{
		{"", "empty schedule"},
		{"   ", "empty schedule"},
		{"* * *", "expected exactly 5 fields, found 3"},
		{"* * * * * *", "expected exactly 5 fields, found 6"},
		{"CRON_TZ=UTC", "CRON_TZ=UTC needs a schedule after it"}, // panics in cron v3.0.1
		{"TZ=", "TZ= needs a schedule after it"},                 // panics in cron v3.0.1
		{"TZ= 0 * * * *", "empty time zone after TZ="},
		{"CRON_TZ=Nowhere/Atlantis 0 * * * *", `unknown time zone "Nowhere/Atlantis"`},
		{"TZ=UTC TZ=", `invalid schedule "TZ="`}, // reaches cron's own TZ= handling: the recovered panic
		{"TZ=UTC CRON_TZ=UTC", `invalid schedule "CRON_TZ=UTC"`},
		{"@every", "@every takes one duration, e.g. @every 2m"},
		{"@every 1m 2m", "@every takes one duration, e.g. @every 2m"},
		{"@every 0s", "@every 0s is below the minimum of 1s"},
		{"@every -5m", "@every -5m is below the minimum of 1s"},
		{"@every soon", `invalid duration "soon" (use Go durations like 90s or 1h30m, plus d for days)`},
		{"@every2m", "unrecognized descriptor: @every2m"},
		{"@sometimes", "unrecognized descriptor: @sometimes"},
		{"60 * * * *", "end of range (60) above maximum (59): 60"},
		{"*/0 * * * *", "step of range should be a positive number: */0"},
		{"x * * * *", `failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax`},
	}
	for _, tt := range bad {
		t.Run("bad "+tt.spec, func(t *testing.T) {
			s, err := ParseSchedule(tt.spec)
			if err == nil {
				t.Fatalf("got %v, want error %q", s, tt.want)
			}
			if err.Error() != tt.want {
				t.Errorf("got %q, want %q", err, tt.want)
			}
		})
	}
}

func TestSafeParseRecovers(t *testing.T) {
	tests := []struct {
		name  string
		parse func(string) (cron.Schedule, error)
		want  string
	}{
		{"panic", func(string) (cron.Schedule, error) { panic("index out of range") }, `invalid schedule "spec"`},
		{"error", func(string) (cron.Schedule, error) { return nil, errors.New("bad\n  spec") }, "bad spec"},
		{"cron panics on CRON_TZ=UTC", cronParser.Parse, `invalid schedule "spec"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := "spec"
			parse := tt.parse
			if tt.name == "cron panics on CRON_TZ=UTC" {
				parse = func(string) (cron.Schedule, error) { return cronParser.Parse("CRON_TZ=UTC") }
			}
			s, err := safeParse(parse, spec)
			if err == nil || err.Error() != tt.want || s != nil {
				t.Errorf("got %v, %v; want nil, %q", s, err, tt.want)
			}
		})
	}
}
