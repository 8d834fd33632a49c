package api

import (
	"encoding/json"
	"testing"
	"time"
)

func TestTimeJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   time.Time
		want string
	}{
		{"zero is null", time.Time{}, `null`},
		{"whole seconds", time.Date(2026, 7, 1, 14, 5, 0, 0, time.UTC), `"2026-07-01T14:05:00Z"`},
		{"fraction kept", time.Date(2026, 7, 1, 14, 5, 0, 120000000, time.UTC), `"2026-07-01T14:05:00.12Z"`},
		{"written in UTC", time.Date(2026, 7, 1, 16, 5, 0, 0, time.FixedZone("CEST", 2*3600)), `"2026-07-01T14:05:00Z"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := json.Marshal(Time(tc.in))
			if err != nil || string(data) != tc.want {
				t.Fatalf("marshal: got %s (%v), want %s", data, err, tc.want)
			}
			var back Time
			if err := json.Unmarshal(data, &back); err != nil {
				t.Fatalf("unmarshal %s: %v", data, err)
			}
			if got := time.Time(back); !got.Equal(tc.in) {
				t.Fatalf("round trip: got %v, want %v", got, tc.in)
			}
		})
	}
}

func TestTimeUnmarshalRefusesJunk(t *testing.T) {
	for _, in := range []string{`"yesterday"`, `12`, `"2026-07-01"`} {
		var got Time
		if err := json.Unmarshal([]byte(in), &got); err == nil {
			t.Errorf("unmarshal %s: got %v, want an error", in, time.Time(got))
		}
	}
}

func TestNullLeavesPointerNil(t *testing.T) {
	var v struct {
		P *Time `json:"p"`
		T Time  `json:"t"`
	}
	if err := json.Unmarshal([]byte(`{"p":null,"t":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.P != nil || !time.Time(v.T).IsZero() {
		t.Fatalf("got p=%v t=%v, want nil and the zero time", v.P, time.Time(v.T))
	}
}
