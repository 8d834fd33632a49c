package diff

import (
	"reflect"
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestRuns(t *testing.T) {
	s := func(v string) *string { return &v }
	changes := []model.Change{
		{Field: FieldStatus, Before: s("monitoring"), After: s("resolved")},
		{Field: FieldTitle, Before: s("API errors"), After: s("API errors in EU"), Ops: Words("API errors", "API errors in EU")},
		{Field: "updates[u1]", After: s("New \x1b[31mtext\r\n")},
		{Field: FieldComponents, Before: s("API"), After: s("")},
	}
	got := Runs(changes)
	want := []FieldRuns{
		{Label: "Status", Field: "status", Runs: []Run{{"monitoring", model.OpDelete}, {" → ", ""}, {"resolved", model.OpInsert}}},
		{Label: "Title", Field: "title", Runs: []Run{{"API errors", model.OpEqual}, {" in EU", model.OpInsert}}},
		{Label: "New update", Field: "updates[u1]", Runs: []Run{{"New [31mtext\n", model.OpInsert}}},
		{Label: "Components", Field: "components", Runs: []Run{{"API", model.OpDelete}, {" → ", ""}, {"(empty)", ""}}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
