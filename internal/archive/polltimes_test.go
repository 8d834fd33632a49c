package archive

import (
	"testing"
	"time"
)

func TestSavePollTimesKeepsTheLaterOfEach(t *testing.T) {
	s := MustOpen(t)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	steps := []struct {
		name string
		save map[string]PollTimes
		want map[string]PollTimes
	}{
		{"first save", map[string]PollTimes{"acme": {Polled: at(10), Succeeded: at(10)}},
			map[string]PollTimes{"acme": {Polled: at(10), Succeeded: at(10)}}},
		{"a later failed poll moves only Polled", map[string]PollTimes{"acme": {Polled: at(20)}},
			map[string]PollTimes{"acme": {Polled: at(20), Succeeded: at(10)}}},
		{"older times and another source", map[string]PollTimes{"acme": {Polled: at(5), Succeeded: at(5)}, "beta": {Polled: at(7)}},
			map[string]PollTimes{"acme": {Polled: at(20), Succeeded: at(10)}, "beta": {Polled: at(7)}}},
	}
	for _, st := range steps {
		if err := s.SavePollTimes(st.save); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		got, err := s.PollTimes()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(st.want) {
			t.Errorf("%s: got %v, want %v", st.name, got, st.want)
		}
		for name, w := range st.want {
			if g := got[name]; !g.Polled.Equal(w.Polled) || !g.Succeeded.Equal(w.Succeeded) {
				t.Errorf("%s: %s: got %+v, want %+v", st.name, name, g, w)
			}
		}
	}
}
