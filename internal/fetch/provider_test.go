package fetch

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestStateChanged(t *testing.T) {
	prev := model.FetchState{"incidents": {ETag: "a", Hash: "h"}}
	for _, tc := range []struct {
		state model.FetchState
		want  bool
	}{
		{model.FetchState{"incidents": {ETag: "a", Hash: "h"}}, false},
		{model.FetchState{"incidents": {ETag: "b", Hash: "h"}}, true},
		{model.FetchState{"incidents": {ETag: "a", Hash: "h"}, "summary": {Hash: "s"}}, true},
		{model.FetchState{}, true},
	} {
		if got := (&Result{State: tc.state}).StateChanged(prev); got != tc.want {
			t.Errorf("StateChanged(%v → %v): got %v, want %v", prev, tc.state, got, tc.want)
		}
	}
	if (&Result{State: model.FetchState{}}).StateChanged(nil) {
		t.Error("empty vs nil state: got changed")
	}
}
