package codec

import (
	"reflect"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

func TestMetaRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		m    Meta
	}{
		{"zero", Meta{}},
		{"full", Meta{Latest: 7, Fingerprint: [32]byte{1, 2, 3}, Announced: true, Removed: true, Open: true,
			Kind: model.KindMaintenance, StartedAt: t0, FirstSeen: t0.Add(time.Second), LastChanged: t0.Add(time.Hour),
			FirstMissed: time.Unix(0, 0).UTC(), RemovedAt: t0.Add(time.Nanosecond)}},
		{"ancient", Meta{StartedAt: time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := UnmarshalMeta(tt.m.Marshal())
			if err != nil || !reflect.DeepEqual(got, tt.m) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.m)
			}
		})
	}
	if _, err := UnmarshalMeta([]byte{9, 9}); err == nil {
		t.Errorf("damaged record: got nil error")
	}
}
