package view

import "time"

// SourceStatus is a configured source as the daemon sees it: its config and the state of
// its polls, which lives in memory (polls that change nothing write nothing).
type SourceStatus struct {
	Name                string
	Title               string // display name
	URL                 string
	Kind                string // configured or detected provider kind
	Paused              bool
	LastPollAt          time.Time // zero: never polled, as far as the archive knows
	LastSuccessAt       time.Time // zero: never read successfully, as far as the archive knows
	LastError           string    // of the latest failed poll while ConsecutiveFailures > 0
	ConsecutiveFailures int

	// LastSuccessBeforeRestart marks a LastSuccessAt saved before the daemon started (a
	// poll that changes nothing writes nothing, so it is saved at shutdown): no poll of
	// this process has succeeded yet.
	LastSuccessBeforeRestart bool
}
