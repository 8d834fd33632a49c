package codec

// The packed form of a fetch state: what the daemon keeps in memory between polls for
// every source whose last poll wrote nothing (archive.PackFetchState). It is in the
// binary form's terms (binWriter, binReader): per entry, in no particular order, the
// name, ETag, Last-Modified, the hash (a byte 1 then 32 bytes when it is a SHA-256 in
// lower-case hex, as fetch.Client makes them; else a byte 0 then the string), Absent,
// Title and the episodes (start, last, missed, inferred as zigzag varints, then one byte
// of flags: 1 open, 2 listed). It is never stored: a change to it needs no migration.

import (
	"encoding/hex"
	"errors"
	"unique"

	"github.com/statuswatch/statuswatch/internal/model"
)

var errBadPacked = errors.New("damaged packed fetch state")

// PackFetchState encodes st in the packed form.
func PackFetchState(st model.FetchState) []byte {
	n := 1
	for k, v := range st {
		n += 8 + len(k) + len(v.ETag) + len(v.LastModified) + min(len(v.Hash), 33) + len(v.Title) + 16 + len(v.Episodes)*20
	}
	w := binWriter{b: make([]byte, 0, n)}
	w.uint(uint64(len(st)))
	for k, v := range st {
		w.str(k)
		w.str(v.ETag)
		w.str(v.LastModified)
		if sum, ok := sha256Hex(v.Hash); ok {
			w.b = append(w.b, 1)
			w.b = append(w.b, sum[:]...)
		} else {
			w.b = append(w.b, 0)
			w.str(v.Hash)
		}
		w.time(v.Absent)
		w.str(v.Title)
		w.list(len(v.Episodes), v.Episodes == nil)
		for _, e := range v.Episodes {
			for _, x := range [...]int64{e.Start, e.Last, e.Missed, e.Inferred} {
				w.int(x)
			}
			var flags byte
			if e.Open {
				flags |= 1
			}
			if e.Listed {
				flags |= 2
			}
			w.b = append(w.b, flags)
		}
	}
	return w.b
}

// UnpackFetchState decodes what PackFetchState encoded. Its strings share one copy of
// b; endpoint names are interned, every source of a platform having the same few.
func UnpackFetchState(b []byte) (model.FetchState, error) {
	r := binReader{s: string(b)}
	n := r.uint()
	if n > uint64(len(r.s)) {
		return nil, errBadPacked
	}
	st := make(model.FetchState, n)
	for range n {
		name := unique.Make(r.str()).Value()
		var v model.EndpointState
		v.ETag = r.str()
		v.LastModified = r.str()
		switch r.byte() {
		case 1:
			v.Hash = hex.EncodeToString([]byte(r.bytes(32)))
		case 0:
			v.Hash = r.str()
		default:
			r.fail()
		}
		v.Absent = r.time()
		v.Title = r.str()
		if m := r.list(5); m >= 0 {
			v.Episodes = make([]model.Episode, m)
			for i := range v.Episodes {
				e := &v.Episodes[i]
				e.Start, e.Last, e.Missed, e.Inferred = r.int(), r.int(), r.int(), r.int()
				flags := r.byte()
				e.Open, e.Listed = flags&1 != 0, flags&2 != 0
				if flags > 3 {
					r.fail()
				}
			}
		}
		if r.err != nil {
			return nil, errBadPacked
		}
		st[name] = v
	}
	if r.err != nil || len(r.s) > 0 {
		return nil, errBadPacked
	}
	return st, nil
}

// sha256Hex decodes h when it is 64 lower-case hex digits, the one form that encodes
// back to the same string.
func sha256Hex(h string) (sum [32]byte, ok bool) {
	if len(h) != 64 {
		return sum, false
	}
	for i := range len(h) {
		if c := h[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return sum, false
		}
	}
	_, err := hex.Decode(sum[:], []byte(h))
	return sum, err == nil
}
