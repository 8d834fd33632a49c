package codec

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// t0 is the start of every test's timeline.
var t0 = time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)

// TestDecodeVersionWrittenByEncodingJSON reads versions as archives before the codec
// stored them: encoding/json, version 1 with its change set.
func TestDecodeVersionWrittenByEncodingJSON(t *testing.T) {
	in := model.Incident{ID: "a", Title: "API <down> & \"slow\"", Status: model.StatusInvestigating,
		Updates: []model.Update{{ID: "u1", Body: "Looking."}}, ResolvedInferred: true}
	stored := diff.Changes(nil, &in)[:1] // not what diff derives: must be kept as stored
	v := model.Version{N: 1, ObservedAt: t0, Incident: in, Changes: stored, Summary: "kept"}
	data, err := json.Marshal(&v)
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeVersion(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*got, v) {
		t.Errorf("decoded\n%+v\nwant\n%+v", *got, v)
	}
	// And what the codec writes, encoding/json reads back the same.
	enc, err := EncodeVersion(&model.Version{N: 2, ObservedAt: t0, Incident: in, Changes: stored, Summary: "s"})
	if err != nil {
		t.Fatal(err)
	}
	var back model.Version
	if err := json.Unmarshal(enc, &back); err != nil {
		t.Fatal(err)
	}
	if want := (model.Version{N: 2, ObservedAt: t0, Incident: in, Changes: stored, Summary: "s"}); !reflect.DeepEqual(back, want) {
		t.Errorf("encoding/json read\n%+v\nwant\n%+v", back, want)
	}
}

// TestBoundOps: a change set keeps its word ops up to maxStoredOps of text, in order,
// and drops those of the changes past it; small change sets are stored as they are.
func TestBoundOps(t *testing.T) {
	op := func(n int) []model.Op {
		return []model.Op{{Op: model.OpInsert, Text: strings.Repeat("x", n-len(model.OpInsert))}}
	}
	small := []model.Change{{Field: "a", Ops: op(100)}, {Field: "b", Ops: op(100)}}
	if got := boundOps(small); !reflect.DeepEqual(got, small) {
		t.Errorf("small: got %+v", got)
	}
	big := []model.Change{{Field: "a", Ops: op(maxStoredOps - 10)}, {Field: "b", Ops: op(100)}, {Field: "c", Ops: op(10)}}
	got := boundOps(big)
	var kept []bool
	for _, c := range got {
		kept = append(kept, c.Ops != nil)
	}
	if want := []bool{true, false, true}; !reflect.DeepEqual(kept, want) {
		t.Errorf("ops kept: got %v, want %v", kept, want)
	}
	if big[1].Ops == nil {
		t.Error("boundOps changed its argument")
	}
}
