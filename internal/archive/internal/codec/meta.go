package codec

import (
	"encoding/binary"
	"errors"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// Meta is what the archive keeps per incident beside its versions, so that comparing a
// snapshot, finding the incidents a poll missed and listing incidents never decode a
// version.
type Meta struct {
	Latest      uint32   // number of the latest version
	Fingerprint [32]byte // diff.Fingerprint of the latest form seen equal to it
	Announced   bool     // an EventNew message was written for it
	Removed     bool     // missing from two well-formed polls in a row (history providers)
	Migrated    bool     // frozen when the page moved to another platform
	Open        bool     // the latest version's status is open
	Kind        model.Kind
	Impact      model.Impact // the latest version's impact, for counts without a decode
	StartedAt   time.Time    // the latest version's start, to test it against a listing's window
	FirstSeen   time.Time    // ObservedAt of version 1
	LastChanged time.Time    // ObservedAt of the latest version
	FirstMissed time.Time    // when a poll first missed it; zero while it is seen
	RemovedAt   time.Time
}

// metaEncoding is the first byte of an encoded Meta. The record is binary rather than
// JSON because every Record that gets past the fingerprint check walks all of a source's
// metas (a GCP source holds its whole history): a fixed layout decodes in well under a
// microsecond. A new field means a new encoding number that UnmarshalMeta still reads.
const metaEncoding = 2 // 2 adds the impact after the kind; 1 is still read

const (
	flagAnnounced = 1 << iota
	flagRemoved
	flagOpen
	flagMigrated // added in layout 1 without a new encoding: older records have the bit clear
)

// Marshal encodes m: encoding, latest, fingerprint, flags, kind (length-prefixed), then
// five times as Unix seconds and nanoseconds.
func (m *Meta) Marshal() []byte {
	b := make([]byte, 0, 1+4+32+1+1+len(m.Kind)+1+len(m.Impact)+5*12)
	b = append(b, metaEncoding)
	b = binary.BigEndian.AppendUint32(b, m.Latest)
	b = append(b, m.Fingerprint[:]...)
	var flags byte
	if m.Announced {
		flags |= flagAnnounced
	}
	if m.Removed {
		flags |= flagRemoved
	}
	if m.Open {
		flags |= flagOpen
	}
	if m.Migrated {
		flags |= flagMigrated
	}
	kind := m.Kind[:min(len(m.Kind), 255)] // model kinds are short; the cap keeps the length one byte
	b = append(b, flags, byte(len(kind)))
	b = append(b, kind...)
	impact := m.Impact[:min(len(m.Impact), 255)]
	b = append(b, byte(len(impact)))
	b = append(b, impact...)
	for _, t := range []time.Time{m.StartedAt, m.FirstSeen, m.LastChanged, m.FirstMissed, m.RemovedAt} {
		b = appendTime(b, t)
	}
	return b
}

var errBadMeta = errors.New("damaged incident record")

// UnmarshalMeta decodes a record written by Marshal. It copies nothing out of b that
// aliases it, so b may point into bbolt's memory map.
func UnmarshalMeta(b []byte) (Meta, error) {
	var m Meta
	if len(b) < 1+4+32+2 || (b[0] != 1 && b[0] != 2) {
		return m, errBadMeta
	}
	enc := b[0]
	b = b[1:]
	m.Latest = binary.BigEndian.Uint32(b)
	b = b[4:]
	copy(m.Fingerprint[:], b)
	b = b[32:]
	flags, n := b[0], int(b[1])
	b = b[2:]
	m.Announced, m.Removed, m.Open = flags&flagAnnounced != 0, flags&flagRemoved != 0, flags&flagOpen != 0
	m.Migrated = flags&flagMigrated != 0
	if len(b) < n {
		return m, errBadMeta
	}
	m.Kind = model.Kind(b[:n]) // string conversion copies
	b = b[n:]
	if enc >= 2 {
		if len(b) < 1 || len(b) < 1+int(b[0]) {
			return m, errBadMeta
		}
		m.Impact, b = model.Impact(b[1:1+int(b[0])]), b[1+int(b[0]):]
	}
	if len(b) != 5*12 {
		return m, errBadMeta
	}
	for _, t := range []*time.Time{&m.StartedAt, &m.FirstSeen, &m.LastChanged, &m.FirstMissed, &m.RemovedAt} {
		*t, b = readTime(b)
	}
	return m, nil
}

// zeroUnix is the Unix second of the zero time.Time, which stands for "not given".
var zeroUnix = time.Time{}.Unix()

// appendTime encodes t as 8 bytes of Unix seconds and 4 of nanoseconds: UnixNano would
// overflow for the zero time and for dates a vendor may get wrong by centuries.
func appendTime(b []byte, t time.Time) []byte {
	b = binary.BigEndian.AppendUint64(b, uint64(t.Unix()))
	return binary.BigEndian.AppendUint32(b, uint32(t.Nanosecond()))
}

func readTime(b []byte) (time.Time, []byte) {
	sec, nsec := int64(binary.BigEndian.Uint64(b)), int64(binary.BigEndian.Uint32(b[8:]))
	if sec == zeroUnix && nsec == 0 {
		return time.Time{}, b[12:]
	}
	return time.Unix(sec, nsec).UTC(), b[12:]
}
