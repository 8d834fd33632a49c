package view

import (
	"cmp"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive"
)

// Key is an incident's place in every list of incidents, the API's and the pages': newest
// first by start (see KeyOf), then id, then source, all descending. The source makes the
// key unique, which keyset paging needs.
type Key struct {
	At         time.Time
	Source, ID string
}

// KeyOf is the place of an archived incident.
func KeyOf(in *archive.IncidentInfo) Key {
	// A scheduled maintenance starts when it is scheduled for; an incident whose vendor
	// gives no start at all (some feeds) is placed by the time it was first archived.
	at := in.Latest.StartedAt
	if at.IsZero() {
		at = in.Latest.ScheduledFor
	}
	if at.IsZero() {
		at = in.FirstSeen
	}
	return Key{At: at.UTC(), Source: in.Source, ID: in.ID}
}

// CompareKeys orders keys as the lists are: a before b is negative.
func CompareKeys(a, b Key) int {
	return cmp.Or(b.At.Compare(a.At), strings.Compare(b.ID, a.ID), strings.Compare(b.Source, a.Source))
}
