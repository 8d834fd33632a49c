package archive

import (
	"github.com/statuswatch/statuswatch/internal/archive/internal/record"
	"github.com/statuswatch/statuswatch/internal/archive/policy"
)

// Policy is what Record needs to know of a source's notification settings; the rules
// it follows are internal/archive/policy's. Named here too, so that a caller of Record
// needs one import.
type Policy = policy.Policy

// The first-poll policies of the top-level on_first_poll key (see policy.FirstPollOpen).
const (
	FirstPollOpen = policy.FirstPollOpen
	FirstPollNone = policy.FirstPollNone
	FirstPollAll  = policy.FirstPollAll
)

// The values of a source's component_changes key (see policy.ComponentChangesNotify).
const (
	ComponentChangesNotify  = policy.ComponentChangesNotify
	ComponentChangesArchive = policy.ComponentChangesArchive
)

// ErrVanished is returned by Record, which then writes nothing, when a well-formed
// snapshot of a history provider lists no incident of a kind while the archive holds some
// inside that listing's window (policy.Vanished). That counts as a fetch failure, never
// as "everything was deleted": pages have served empty lists during their own outages.
var ErrVanished = record.ErrVanished
