package daemon

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"sync"
	"time"
	"unique"

	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/model"
)

// stateCache holds the poll state of sources whose last poll wrote nothing (see
// Poller.states), each packed into one byte slice. A decoded model.FetchState is a map
// of a few endpoints, each with its validators and a hex body hash: about 1.5 KB a
// source once the map's slots and strings are counted, 15 MB of the daemon's live heap
// at 10,000 sources, every byte of it held between polls for nothing. Packed (pack) it
// is a few hundred bytes; a poll unpacks its source's state once, which costs about what
// the copy of it every poll makes anyway (fetch.NewPoll).
type stateCache struct {
	mu sync.Mutex
	m  map[string]packedState
}

// packedState is an archive.PollState without its failure counts, which are zero for
// every state kept (keep).
type packedState struct {
	fetch   []byte // pack(FetchState)
	kind    unique.Handle[string]
	pending bool
}

// take takes a source's state out of the cache.
func (c *stateCache) take(source string) (archive.PollState, bool) {
	c.mu.Lock()
	p, ok := c.m[source]
	delete(c.m, source)
	c.mu.Unlock()
	if !ok {
		return archive.PollState{}, false
	}
	st, err := unpack(p.fetch)
	if err != nil {
		return archive.PollState{}, false // cannot happen; the archive has it anyway
	}
	return archive.PollState{Fetch: st, Kind: p.kind.Value(), PendingMisses: p.pending}, true
}

// keep remembers ps for source. A failing source's is not kept: its success is about
// to be written, and its counts are not packed.
func (c *stateCache) keep(source string, ps archive.PollState) {
	if ps.Failures > 0 || ps.Unreadable > 0 {
		return
	}
	p := packedState{fetch: pack(ps.Fetch), kind: unique.Make(ps.Kind), pending: ps.PendingMisses}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]packedState{}
	}
	c.m[source] = p
}

// has reports whether source's state is cached.
func (c *stateCache) has(source string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[source]
	return ok
}

// pack encodes st: per entry, in no particular order, its name, the validators, the
// hash (32 bytes when it is a SHA-256 in lower-case hex, as fetch.Client makes them,
// else the string), Absent, Title and the episodes, each string and number
// length-prefixed or a varint.
func pack(st model.FetchState) []byte {
	n := 1
	for k, v := range st {
		n += 8 + len(k) + len(v.ETag) + len(v.LastModified) + min(len(v.Hash), 33) + len(v.Title) + 8 + len(v.Episodes)*20
	}
	b := make([]byte, 0, n)
	b = binary.AppendUvarint(b, uint64(len(st)))
	for k, v := range st {
		b = appendString(b, k)
		b = appendString(b, v.ETag)
		b = appendString(b, v.LastModified)
		if h, ok := sha256Hex(v.Hash); ok {
			b = append(b, hashRaw)
			b = append(b, h[:]...)
		} else {
			b = append(b, hashString)
			b = appendString(b, v.Hash)
		}
		if v.Absent.IsZero() {
			b = append(b, 0)
		} else {
			b = append(b, 1)
			b = binary.AppendVarint(b, v.Absent.Unix())
			b = binary.AppendUvarint(b, uint64(v.Absent.Nanosecond()))
		}
		b = appendString(b, v.Title)
		b = binary.AppendUvarint(b, uint64(len(v.Episodes)))
		for _, e := range v.Episodes {
			for _, x := range [...]int64{e.Start, e.Last, e.Missed, e.Inferred} {
				b = binary.AppendVarint(b, x)
			}
			b = append(b, flag(e.Open)|flag(e.Listed)<<1)
		}
	}
	return b
}

// How pack writes a hash.
const (
	hashString = 0
	hashRaw    = 1
)

var errPacked = errors.New("packed fetch state: malformed")

// unpack decodes what pack encoded. Endpoint names are interned: every source of a
// platform has the same few.
func unpack(b []byte) (model.FetchState, error) {
	r := reader{b: b}
	n := r.uvarint()
	if n > uint64(len(b)) {
		return nil, errPacked
	}
	st := make(model.FetchState, n)
	for range n {
		name := unique.Make(r.string()).Value()
		var v model.EndpointState
		v.ETag = r.string()
		v.LastModified = r.string()
		switch r.byte() {
		case hashRaw:
			v.Hash = hex.EncodeToString(r.bytes(32))
		case hashString:
			v.Hash = r.string()
		default:
			r.fail()
		}
		if r.byte() == 1 {
			sec := r.varint()
			v.Absent = time.Unix(sec, int64(r.uvarint())).UTC()
		}
		v.Title = r.string()
		if m := r.uvarint(); m > 0 && m <= uint64(len(b)) {
			v.Episodes = make([]model.Episode, m)
			for i := range v.Episodes {
				e := &v.Episodes[i]
				e.Start, e.Last, e.Missed, e.Inferred = r.varint(), r.varint(), r.varint(), r.varint()
				f := r.byte()
				e.Open, e.Listed = f&1 != 0, f&2 != 0
			}
		} else if m > 0 {
			r.fail()
		}
		if r.err != nil {
			return nil, r.err
		}
		st[name] = v
	}
	if r.err == nil && len(r.b) > 0 {
		return nil, errPacked
	}
	return st, r.err
}

// sha256Hex decodes h when it is 64 lower-case hex digits, the only form that encodes
// back to the same string.
func sha256Hex(h string) (sum [32]byte, ok bool) {
	if len(h) != 64 {
		return sum, false
	}
	for i := 0; i < len(h); i++ {
		if c := h[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return sum, false
		}
	}
	_, err := hex.Decode(sum[:], []byte(h))
	return sum, err == nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func flag(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// reader reads pack's encoding; after the first error every read returns zero.
type reader struct {
	b   []byte
	err error
}

func (r *reader) fail() {
	if r.err == nil {
		r.err = errPacked
	}
	r.b = nil
}

func (r *reader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *reader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *reader) bytes(n int) []byte {
	if len(r.b) < n {
		r.fail()
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *reader) string() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	return string(r.bytes(int(n)))
}
