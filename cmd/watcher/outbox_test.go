package main

import (
	"testing"

	"github.com/statuswatch/statuswatch/internal/model"
)

// TestMessageAbout: the outbox list says what each message announces; a component message
// names the component set's version, not an incident's.
func TestMessageAbout(t *testing.T) {
	for _, tc := range []struct {
		m    model.Message
		want string
	}{
		{model.Message{Source: "acme", IncidentID: "x1", Version: 3, Event: model.EventChanged}, "acme/x1 v3"},
		{model.Message{Source: "acme", Event: model.EventSourceDown}, "acme"},
		{model.Message{Source: "acme", Version: 4, Event: model.EventComponentDegraded}, "acme components v4"},
		{model.Message{Source: "acme", IncidentID: "x1", Version: 5, Event: model.EventComponentRecovered}, "acme components v5 (in acme/x1's thread)"},
	} {
		if got := messageAbout(tc.m); got != tc.want {
			t.Errorf("messageAbout(%+v) = %q, want %q", tc.m, got, tc.want)
		}
	}
}
