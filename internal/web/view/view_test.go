package view

import "time"

// now is the clock of every test: two hours into the test timeline of internal/web.
var now = time.Date(2026, 7, 1, 14, 0, 0, 0, time.UTC)
