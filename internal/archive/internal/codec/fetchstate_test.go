package codec

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

// legacyState is a fetch state as layout 2 stored it: AWS's episodes as a list in the
// Hash of their entries, beside an endpoint's validators.
const legacyState = `{"currentevents":{"etag":"\"c1\"","hash":"ab"},` +
	`"episodes/old":{"hash":"1772369485-1777533954+,1786765379-1787025679"},` +
	`"episodes/new":{"hash":"10-20+e,30-40+m50,60-70i80,90-95+"},` +
	`"episodes/junk":{"hash":"1-2+x,3-4i0,5-6+m,7-6,8-9+mx,10-11e,12-13+i14,a-1,,15-16"},` +
	`"episodes/empty":{}}`

// legacyWant is legacyState as it reads today.
var legacyWant = model.FetchState{
	"currentevents": {ETag: `"c1"`, Hash: "ab"},
	"episodes/old":  {Episodes: []model.Episode{{Start: 1772369485, Last: 1777533954, Open: true}, {Start: 1786765379, Last: 1787025679}}},
	"episodes/new": {Episodes: []model.Episode{{Start: 10, Last: 20, Open: true, Listed: true}, {Start: 30, Last: 40, Open: true, Missed: 50},
		{Start: 60, Last: 70, Inferred: 80}, {Start: 90, Last: 95, Open: true}}},
	"episodes/junk":  {Episodes: []model.Episode{{Start: 15, Last: 16}}},
	"episodes/empty": {},
}

// TestLegacyEpisodes: a fetch state in the form of layout 2 reads in today's, every
// unreadable entry of a list skipped; the form before the absence rule ("start-last",
// "start-last+") reads too, an open episode of it neither listed nor missed.
func TestLegacyEpisodes(t *testing.T) {
	st, err := DecodeFetchState([]byte(legacyState))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(st, legacyWant) {
		t.Errorf("got %+v, want %+v", st, legacyWant)
	}
	again, err := DecodeFetchState(mustJSON(t, st))
	if err != nil || !again.Equal(st) {
		t.Errorf("today's form read back as %+v, %v", again, err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
