package archive

import (
	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// Versions are the bulk of the archive and of a cold poll's work, so they get their own
// codec: go-json-experiment, about twice as fast as encoding/json both ways, with the
// options that keep its output what encoding/json wrote before (nil slices as null), so
// archives of either age read the same.
var versionJSON = json.JoinOptions(
	json.FormatNilSliceAsNull(true),
	json.FormatNilMapAsNull(true),
	jsontext.AllowInvalidUTF8(true),
	jsontext.AllowDuplicateNames(true),
)

// encodeVersion is the stored form of v. Version 1's change set is left out: it is always
// diff.Changes(nil, incident) — every field "not present" before — so it repeats every
// text of the incident once or twice more, and decodeVersion derives it instead. That
// halves what a new incident writes.
func encodeVersion(v *model.Version) ([]byte, error) {
	if v.N == 1 {
		c := *v
		c.Changes, c.Summary = nil, ""
		v = &c
	}
	return json.Marshal(v, versionJSON)
}

// decodeVersion reads a stored version, deriving version 1's change set (encodeVersion).
// A version 1 stored with its change set (archives written before) keeps it.
func decodeVersion(data []byte) (*model.Version, error) {
	var v model.Version
	if err := json.Unmarshal(data, &v, versionJSON); err != nil {
		return nil, err
	}
	if v.N == 1 && v.Changes == nil {
		v.Changes = diff.Changes(nil, &v.Incident)
		v.Summary = diff.Summary(v.Changes)
	}
	return &v, nil
}
