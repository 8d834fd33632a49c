package codec

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// randomFetchState makes a state with every field of an entry set now and then: hashes
// in fetch.Client's form and in others, absent times with nanoseconds and offsets,
// episodes with every flag.
func randomFetchState(r *rand.Rand) model.FetchState {
	st := model.FetchState{}
	text := func() string {
		if r.IntN(3) == 0 {
			return ""
		}
		return strings.Repeat(string(rune('a'+r.IntN(26))), r.IntN(40)) + "\"é\x00"
	}
	for range r.IntN(6) {
		v := model.EndpointState{ETag: text(), LastModified: text(), Title: text()}
		switch r.IntN(4) {
		case 0:
			v.Hash = fmt.Sprintf("%064x", r.Uint64())
		case 1:
			v.Hash = strings.ToUpper(fmt.Sprintf("%064x", r.Uint64())) // not fetch's form: kept as a string
		case 2:
			v.Hash = text()
		}
		if r.IntN(2) == 0 {
			v.Absent = time.Unix(r.Int64N(4e9)-1e9, r.Int64N(1e9)).In(time.FixedZone("x", 3600*r.IntN(12)))
		}
		for range r.IntN(3) {
			v.Episodes = append(v.Episodes, model.Episode{Start: r.Int64N(2e9) - 1e9, Last: r.Int64(),
				Open: r.IntN(2) == 0, Listed: r.IntN(2) == 0, Missed: r.Int64N(9), Inferred: -r.Int64N(9)})
		}
		st[fmt.Sprintf("endpoint-%d", r.IntN(100))] = v
	}
	return st
}

func TestPackedFetchStateRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		st := randomFetchState(r)
		got, err := UnpackFetchState(PackFetchState(st))
		if err != nil {
			t.Fatalf("state %d: %v", i, err)
		}
		if !got.Equal(st) {
			t.Fatalf("state %d: unpacked\n%v\nwant\n%v", i, got, st)
		}
	}
}

// A Statuspage source's state as the daemon holds it at 10,000 sources packs into a
// fraction of the memory its map takes.
func TestPackedFetchStateIsCompact(t *testing.T) {
	hash := strings.Repeat("0123456789abcdef", 4)
	st := model.FetchState{model.StatePage: {Title: "Acme Cloud"}}
	for _, name := range []string{"summary", "incidents", "scheduled-maintenances"} {
		st[name] = model.EndpointState{ETag: `W/"5f2c0e8b9c7d4a3e1f0a"`, LastModified: "Wed, 02 Dec 2026 10:00:00 GMT", Hash: hash}
	}
	b := PackFetchState(st)
	// Each entry's strings alone are 51 bytes and its hash 64 as hex.
	if len(b) > 4*(60+33)+20 {
		t.Errorf("packed into %d bytes, want the hashes raw (32 bytes each)", len(b))
	}
}

// Anything UnpackFetchState is given, it returns an error or a state, never panics, and
// a state it returns packs and unpacks to the same.
func FuzzUnpackFetchState(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		f.Add(PackFetchState(randomFetchState(r)))
	}
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := UnpackFetchState(b)
		if err != nil {
			return
		}
		again, err := UnpackFetchState(PackFetchState(st))
		if err != nil || !again.Equal(st) {
			t.Fatalf("repacked: %v, %v; want %v", again, err, st)
		}
	})
}
