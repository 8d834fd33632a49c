package model

import (
	"testing"
	"time"
)

func TestFetchStateEqual(t *testing.T) {
	eps := func(e ...Episode) EndpointState { return EndpointState{Episodes: e} }
	absent := time.Date(2026, 7, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name string
		a, b FetchState
		want bool
	}{
		{"nil and empty", nil, FetchState{}, true},
		{"same validators", FetchState{"a": {ETag: "x", Hash: "h"}}, FetchState{"a": {ETag: "x", Hash: "h"}}, true},
		{"another hash", FetchState{"a": {Hash: "h"}}, FetchState{"a": {Hash: "i"}}, false},
		{"another key", FetchState{"a": {}}, FetchState{"b": {}}, false},
		{"one more key", FetchState{"a": {}}, FetchState{"a": {}, "b": {}}, false},
		{"same absence", FetchState{"a": {Absent: absent}}, FetchState{"a": {Absent: absent}}, true},
		{"same episodes", FetchState{"e": eps(Episode{Start: 1, Last: 2, Open: true})}, FetchState{"e": eps(Episode{Start: 1, Last: 2, Open: true})}, true},
		{"an episode listed", FetchState{"e": eps(Episode{Start: 1, Last: 2, Open: true})}, FetchState{"e": eps(Episode{Start: 1, Last: 2, Open: true, Listed: true})}, false},
		{"one more episode", FetchState{"e": eps(Episode{Start: 1})}, FetchState{"e": eps(Episode{Start: 1}, Episode{Start: 3})}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.a.Equal(tt.b); got != tt.want {
				t.Errorf("a.Equal(b): got %v, want %v", got, tt.want)
			}
			if got := tt.b.Equal(tt.a); got != tt.want {
				t.Errorf("b.Equal(a): got %v, want %v", got, tt.want)
			}
		})
	}
}

// TestFetchStateClone: a clone's episodes are its own.
func TestFetchStateClone(t *testing.T) {
	s := FetchState{"e": {Episodes: []Episode{{Start: 1, Last: 2}}}}
	c := s.Clone()
	c["e"].Episodes[0].Last = 9
	if s["e"].Episodes[0].Last != 2 || !s.Equal(FetchState{"e": {Episodes: []Episode{{Start: 1, Last: 2}}}}) {
		t.Errorf("changing the clone changed the state: %+v", s)
	}
}
