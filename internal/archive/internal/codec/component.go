package codec

// The stored form of a source's component set: its versions and its meta.

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/go-json-experiment/json"

	"github.com/statuswatch/statuswatch/internal/model"
)

// ComponentHeader is a stored component version's header: what a history of changes
// reads without decompressing the set.
type ComponentHeader struct {
	N          int                     `json:"n"`
	ObservedAt time.Time               `json:"observed_at"`
	Changes    []model.ComponentChange `json:"changes,omitempty"`
	Thread     int                     `json:"thread,omitempty"`
}

// componentSet is the compressed part of a stored component version: the set, each
// component with when it entered its status (Since) and when it last left operational
// (Down, zero while operational), and the alerts.
type componentSet struct {
	PageStatus      string            `json:"page_status,omitempty"`
	PageDescription string            `json:"page_description,omitempty"`
	List            []storedComponent `json:"components"`
	Alerts          map[string]string `json:"alerts,omitempty"`
}

type storedComponent struct {
	model.Component `json:",inline"`
	Down            time.Time `json:"down,omitzero"`
}

// A stored component version is a record as an incident's is (EncodeRecord): recordS2,
// the uvarint length of the header (ComponentHeader as JSON), the header, then the set
// (componentSet as JSON) as one S2 block. A new version holds the whole set: the set in
// force at any time is one read, and S2 packs the repeated keys of a big page to a
// fraction (300 components: about 5 KB).

// EncodeComponentVersion is the stored form of v, whose components carry their Since;
// down gives, by key, when each component not operational last left operational.
func EncodeComponentVersion(v *model.ComponentVersion, down map[string]time.Time) ([]byte, error) {
	set := componentSet{PageStatus: v.Components.PageStatus, PageDescription: v.Components.PageDescription,
		List: make([]storedComponent, len(v.Components.List)), Alerts: v.Alerts}
	for i, c := range v.Components.List {
		set.List[i] = storedComponent{Component: c, Down: down[c.Key()]}
	}
	data, err := json.Marshal(&set, versionJSON)
	if err != nil {
		return nil, err
	}
	hdr, err := json.Marshal(&ComponentHeader{N: v.N, ObservedAt: v.ObservedAt, Changes: v.Changes, Thread: v.Thread}, versionJSON)
	if err != nil {
		return nil, err
	}
	return record(recordS2, hdr, data), nil
}

// splitComponentRecord returns a stored component version's header and block.
func splitComponentRecord(data []byte) (hdr, block []byte, err error) {
	form, hdr, block, err := splitRecord(data)
	if err == nil && form != recordS2 {
		err = errors.New("not a component version record")
	}
	return hdr, block, err
}

// DecodeComponentHeader reads a stored component version's header alone.
func DecodeComponentHeader(data []byte) (ComponentHeader, error) {
	var h ComponentHeader
	hdr, _, err := splitComponentRecord(data)
	if err == nil {
		err = json.Unmarshal(hdr, &h, versionJSON)
	}
	return h, err
}

// DecodeComponentVersion reads a stored component version, and by key when each
// component not operational last left operational.
func DecodeComponentVersion(data []byte) (*model.ComponentVersion, map[string]time.Time, error) {
	hdr, block, err := splitComponentRecord(data)
	if err != nil {
		return nil, nil, err
	}
	var h ComponentHeader
	if err := json.Unmarshal(hdr, &h, versionJSON); err != nil {
		return nil, nil, err
	}
	raw, err := decompress(block)
	if err != nil {
		return nil, nil, fmt.Errorf("component version: %w", err)
	}
	var set componentSet
	if err := json.Unmarshal(raw, &set, versionJSON); err != nil {
		return nil, nil, err
	}
	v := &model.ComponentVersion{N: h.N, ObservedAt: h.ObservedAt, Changes: h.Changes, Thread: h.Thread, Alerts: set.Alerts,
		Components: model.Components{PageStatus: set.PageStatus, PageDescription: set.PageDescription,
			List: make([]model.Component, len(set.List))}}
	down := map[string]time.Time{}
	for i, c := range set.List {
		v.Components.List[i] = c.Component
		if !c.Down.IsZero() {
			down[c.Key()] = c.Down
		}
	}
	return v, down, nil
}

// ComponentMeta is what the archive keeps of a source's component set beside its
// versions: an unchanged set is told from its fingerprint without a decode, and a
// dashboard of every source reads what it shows of each set from here alone.
type ComponentMeta struct {
	Latest      uint32   // number of the latest version, 0 for none
	Fingerprint [32]byte // ComponentFingerprint of the latest version's set
	Open        uint32   // the root version of the open component thread, 0 when none is
	// Quiet: the next set read is taken in as a first set, archived without a message
	// (the page moved to another platform, whose components have other keys).
	Quiet bool
	// What the latest version shows: when it was observed, its components, how many of
	// them are not operational and the worst status among them (operational for none),
	// and the page's status and description.
	ObservedAt      time.Time
	Count           uint32
	NotOperational  uint32
	Worst           model.ComponentStatus
	PageStatus      string
	PageDescription string
}

const componentMetaEncoding = 1

// Marshal encodes m: encoding, latest, fingerprint, open, quiet, the observation time
// as Unix seconds and nanoseconds, count, not operational, then worst, page status and
// page description each length-prefixed.
func (m *ComponentMeta) Marshal() []byte {
	b := make([]byte, 0, 64+len(m.Worst)+len(m.PageStatus)+len(m.PageDescription))
	b = append(b, componentMetaEncoding)
	b = binary.BigEndian.AppendUint32(b, m.Latest)
	b = append(b, m.Fingerprint[:]...)
	b = binary.BigEndian.AppendUint32(b, m.Open)
	var q byte
	if m.Quiet {
		q = 1
	}
	b = append(b, q)
	b = appendTime(b, m.ObservedAt)
	b = binary.BigEndian.AppendUint32(b, m.Count)
	b = binary.BigEndian.AppendUint32(b, m.NotOperational)
	for _, s := range []string{string(m.Worst), m.PageStatus, m.PageDescription} {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	return b
}

// UnmarshalComponentMeta decodes a ComponentMeta; nil data is the zero meta of a
// source without a component version.
func UnmarshalComponentMeta(data []byte) (ComponentMeta, error) {
	var m ComponentMeta
	if data == nil {
		return m, nil
	}
	damaged := errors.New("damaged component meta")
	const fixed = 1 + 4 + 32 + 4 + 1 + 12 + 4 + 4
	if len(data) < fixed || data[0] != componentMetaEncoding {
		return m, damaged
	}
	m.Latest = binary.BigEndian.Uint32(data[1:])
	copy(m.Fingerprint[:], data[5:37])
	m.Open = binary.BigEndian.Uint32(data[37:])
	m.Quiet = data[41] == 1
	m.ObservedAt, _ = readTime(data[42:])
	m.Count = binary.BigEndian.Uint32(data[54:])
	m.NotOperational = binary.BigEndian.Uint32(data[58:])
	rest := data[fixed:]
	var strs [3]string
	for i := range strs {
		n, w := binary.Uvarint(rest)
		if w <= 0 || n > uint64(len(rest)-w) {
			return ComponentMeta{}, damaged
		}
		strs[i], rest = string(rest[w:w+int(n)]), rest[w+int(n):]
	}
	if len(rest) != 0 {
		return ComponentMeta{}, damaged
	}
	m.Worst, m.PageStatus, m.PageDescription = model.ComponentStatus(strs[0]), strs[1], strs[2]
	return m, nil
}

// ComponentFingerprint is the hash of what a new component version is made of: the
// page's status and description, and each component's key, name, group and status, in
// the set's order (canonical sets have one). Two sets with the same fingerprint make no
// new version; status_raw and Since are not in it.
func ComponentFingerprint(cs *model.Components) [32]byte {
	h := sha256.New()
	var b []byte
	field := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	field(cs.PageStatus)
	field(cs.PageDescription)
	for _, c := range cs.List {
		field(c.Key())
		field(c.Name)
		field(c.Group)
		field(string(c.Status))
		if len(b) > 4096 {
			h.Write(b)
			b = b[:0]
		}
	}
	h.Write(b)
	var sum [32]byte
	h.Sum(sum[:0])
	return sum
}
