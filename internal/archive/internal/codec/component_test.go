package codec

import (
	"reflect"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestComponentVersionRoundTrip(t *testing.T) {
	at := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	api := model.Component{ID: "a", Name: "API", Group: "Core", Status: model.ComponentDegraded, StatusRaw: "degraded_performance", Since: at}
	web := model.Component{Name: "Web", Status: model.ComponentOperational, StatusRaw: "operational", Since: at.Add(-time.Hour)}
	v := &model.ComponentVersion{N: 3, ObservedAt: at,
		Components: model.Components{PageStatus: "minor", PageDescription: "Minor Service Outage", List: []model.Component{api, web}},
		Changes:    []model.ComponentChange{{Key: api.Key(), Component: "API", Group: "Core", From: model.ComponentOperational, To: model.ComponentDegraded, Told: true}},
		Thread:     3, Alerts: map[string]string{api.Key(): model.ComponentThread}}
	down := map[string]time.Time{api.Key(): at.Add(-time.Minute)}
	data, err := EncodeComponentVersion(v, down)
	if err != nil {
		t.Fatal(err)
	}
	got, gotDown, err := DecodeComponentVersion(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, v) {
		t.Errorf("version: got %+v, want %+v", got, v)
	}
	if !reflect.DeepEqual(gotDown, down) {
		t.Errorf("down: got %v, want %v", gotDown, down)
	}
	h, err := DecodeComponentHeader(data)
	if err != nil || h.N != 3 || !h.ObservedAt.Equal(at) || h.Thread != 3 || !reflect.DeepEqual(h.Changes, v.Changes) {
		t.Errorf("header: got %+v, %v", h, err)
	}
	for _, bad := range [][]byte{nil, {'{'}, {recordS2, 200}, data[:len(data)-3]} {
		if _, _, err := DecodeComponentVersion(bad); err == nil {
			t.Errorf("DecodeComponentVersion(%x): no error", bad)
		}
	}
}

func TestComponentMetaRoundTrip(t *testing.T) {
	m := ComponentMeta{Latest: 7, Open: 5, Count: 300, Quiet: true, ObservedAt: time.Date(2026, 7, 1, 12, 0, 0, 5, time.UTC),
		NotOperational: 2, Worst: model.ComponentMajorOutage, PageStatus: "major", PageDescription: "Partial System Outage"}
	m.Fingerprint[0], m.Fingerprint[31] = 1, 2
	got, err := UnmarshalComponentMeta(m.Marshal())
	if err != nil || got != m {
		t.Errorf("got %+v, %v; want %+v", got, err, m)
	}
	if z, err := UnmarshalComponentMeta(nil); err != nil || z != (ComponentMeta{}) {
		t.Errorf("nil: got %+v, %v", z, err)
	}
	if _, err := UnmarshalComponentMeta([]byte{1, 2}); err == nil {
		t.Error("short meta: no error")
	}
	data := m.Marshal()
	for _, bad := range [][]byte{data[:len(data)-1], append(data, 0)} {
		if _, err := UnmarshalComponentMeta(bad); err == nil {
			t.Errorf("meta of %d bytes (%d good): no error", len(bad), len(data))
		}
	}
	if z, err := UnmarshalComponentMeta((&ComponentMeta{}).Marshal()); err != nil || z != (ComponentMeta{}) {
		t.Errorf("zero: got %+v, %v", z, err)
	}
}

func TestComponentFingerprint(t *testing.T) {
	base := model.Components{PageStatus: "none", List: []model.Component{{Name: "API", Status: model.ComponentOperational}}}
	fp := ComponentFingerprint(&base)
	same := base
	same.List = []model.Component{{Name: "API", Status: model.ComponentOperational, StatusRaw: "green", Since: time.Now()}}
	if ComponentFingerprint(&same) != fp {
		t.Error("status_raw or Since changed the fingerprint")
	}
	for name, cs := range map[string]model.Components{
		"status":      {PageStatus: "none", List: []model.Component{{Name: "API", Status: model.ComponentDegraded}}},
		"name":        {PageStatus: "none", List: []model.Component{{Name: "APIs", Status: model.ComponentOperational}}},
		"group":       {PageStatus: "none", List: []model.Component{{Name: "API", Group: "G", Status: model.ComponentOperational}}},
		"page status": {PageStatus: "minor", List: base.List},
		"description": {PageStatus: "none", PageDescription: "x", List: base.List},
		"no list":     {PageStatus: "none"},
		// length prefixes keep one field from running into the next
		"shifted": {PageStatus: "non", PageDescription: "e", List: base.List},
	} {
		if ComponentFingerprint(&cs) == fp {
			t.Errorf("%s: same fingerprint", name)
		}
	}
}
