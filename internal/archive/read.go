package archive

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/archive/internal/codec"
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/layout"
	"github.com/statuswatch/statuswatch/internal/archive/internal/snapshot"
	"github.com/statuswatch/statuswatch/internal/archive/internal/sourcehealth"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// Every read runs in one short read transaction and copies what it returns out of it:
// bbolt's byte slices point into the memory map and die with the transaction. Incident id
// arguments go through model.URLID, so a provider id and its URL id both work.

// FetchState returns the fetch state last saved for source, empty if none.
func (s *Store) FetchState(source string) (model.FetchState, error) {
	return read(s, "fetch state "+source, func(tx *bolt.Tx) (model.FetchState, error) {
		return codec.DecodeFetchState(layout.Get(layout.Sub(layout.Source(tx, source), layout.BucketState), layout.KeyFetch))
	})
}

// Latest returns the latest archived version of an incident, nil if it has none.
func (s *Store) Latest(source, id string) (*model.Incident, error) {
	id = model.URLID(id)
	v, err := read(s, "latest "+source+"/"+id, func(tx *bolt.Tx) (*model.Version, error) {
		src := layout.Source(tx, source)
		return incident.Latest(layout.Sub(src, layout.BucketIncidents), layout.Sub(src, layout.BucketVersions), id)
	})
	if err != nil || v == nil {
		return nil, err
	}
	return &v.Incident, nil
}

// SourceInfo is what the archive knows of a source.
type SourceInfo struct {
	Name      string
	Incidents int    // archived incidents, removed ones included
	Failures  int    // consecutive failed polls
	LastError string // of the latest failure while Failures > 0
	Down      bool   // the failures reached the threshold and were announced
	// FirstPoll is the observation time of the source's first poll (zero if unknown; in
	// an archive written before it was kept, a time just after it): the incidents of that
	// poll were archived as found, not seen appearing.
	FirstPoll time.Time
}

// Sources lists every source with something archived, by name. A source renamed or
// deleted from the config still appears: its archive stays (a retired source).
func (s *Store) Sources() ([]SourceInfo, error) {
	return read(s, "sources", func(tx *bolt.Tx) (out []SourceInfo, err error) {
		return out, eachSource(tx, "", func(name string, src *bolt.Bucket) error {
			h, err := sourcehealth.Load(src)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			info := SourceInfo{Name: name, Failures: h.Failures, LastError: h.LastError, Down: h.Down}
			if raw := layout.Get(layout.Sub(src, layout.BucketState), layout.KeyFirst); raw != nil {
				info.FirstPoll, _ = time.Parse(time.RFC3339Nano, string(raw)) // unparsable: unknown
			}
			if inc := src.Bucket(layout.BucketIncidents); inc != nil {
				info.Incidents = inc.Stats().KeyN
			}
			out = append(out, info)
			return nil
		})
	})
}

// IncidentInfo is an archived incident as listings show it: the latest version and what
// the archive knows around it.
type IncidentInfo struct {
	Source      string
	ID          string // URL id
	Latest      model.Incident
	Versions    int
	FirstSeen   time.Time // when version 1 was observed
	LastChanged time.Time // when the latest version was observed
	Removed     bool      // vanished from the page (two well-formed polls in a row)
	Migrated    bool      // frozen when the page moved to another platform
	RemovedAt   time.Time
	Announced   bool // a root message was written for it
}

// infoOf is the IncidentInfo of an incident with meta m and latest version ver.
func infoOf(source, id string, m *codec.Meta, ver *model.Version) IncidentInfo {
	return IncidentInfo{
		Source: source, ID: id, Latest: ver.Incident, Versions: int(m.Latest),
		FirstSeen: m.FirstSeen, LastChanged: m.LastChanged,
		Removed: m.Removed, Migrated: m.Migrated, RemovedAt: m.RemovedAt, Announced: m.Announced,
	}
}

// ListedAt is the time lists of incidents order it by: its start, else (a maintenance) its
// scheduled start, else (a feed that gives no start) when it was first archived.
func (in *IncidentInfo) ListedAt() time.Time {
	return listedAt(in.Latest.StartedAt, in.Latest.ScheduledFor, in.FirstSeen)
}

func listedAt(started, scheduled, firstSeen time.Time) time.Time {
	switch {
	case !started.IsZero():
		return started.UTC()
	case !scheduled.IsZero():
		return scheduled.UTC()
	}
	return firstSeen.UTC()
}

// Incidents lists the archived incidents of source, or of every source when source is
// empty: by source, then most recently changed first. An unknown source lists nothing.
func (s *Store) Incidents(source string) ([]IncidentInfo, error) {
	return listIncidents(s, "incidents", source, func(name string, k []byte, m codec.Meta, versions *bolt.Bucket) (*IncidentInfo, error) {
		ver, err := incident.Load(versions, string(k), m.Latest)
		if err != nil {
			return nil, err
		}
		info := infoOf(name, string(k), &m, ver)
		return &info, nil
	})
}

// listIncidents reads the incidents of source (every source when empty) in one read
// transaction, each made an IncidentInfo by info (nil leaves it out), in the order of
// Incidents: by source, then most recently changed first.
func listIncidents(s *Store, op, source string, info func(name string, id []byte, m codec.Meta, versions *bolt.Bucket) (*IncidentInfo, error)) ([]IncidentInfo, error) {
	out, err := read(s, op, func(tx *bolt.Tx) (out []IncidentInfo, err error) {
		return out, eachSource(tx, source, func(name string, src *bolt.Bucket) error {
			incidents := src.Bucket(layout.BucketIncidents)
			if incidents == nil {
				return nil
			}
			versions := src.Bucket(layout.BucketVersions)
			return incident.EachMeta(incidents, func(k []byte, m codec.Meta) error {
				in, err := info(name, k, m, versions)
				if err != nil {
					return fmt.Errorf("%s/%s: %w", name, k, err)
				}
				if in != nil {
					out = append(out, *in)
				}
				return nil
			})
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b IncidentInfo) int {
		return cmp.Or(strings.Compare(a.Source, b.Source), b.LastChanged.Compare(a.LastChanged), strings.Compare(a.ID, b.ID))
	})
	return out, nil
}

// Versions returns every version of an incident, oldest first, or ErrNotFound.
func (s *Store) Versions(source, id string) ([]model.Version, error) {
	id = model.URLID(id)
	out, err := read(s, "versions "+source+"/"+id, func(tx *bolt.Tx) (out []model.Version, err error) {
		return out, incident.Each(tx, source, id, func(v []byte) error {
			ver, err := codec.DecodeVersion(v)
			if err == nil {
				out = append(out, *ver)
			}
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// VersionInfo is a version as a list of versions shows it, read without its incident.
type VersionInfo struct {
	N          int
	ObservedAt time.Time
	Summary    string   // of the change from the version before
	Snapshot   string   // as model.Version.Snapshot
	Fields     []string // the fields its change set touched; none for version 1
}

// VersionInfos returns every version of an incident as VersionInfo, oldest first, or
// ErrNotFound. It decodes no incident but version 1's, whose summary is derived
// (codec.EncodeVersion), and that one outside the transaction: memory and time stay small
// however large the bodies and however many the versions.
func (s *Store) VersionInfos(source, id string) ([]VersionInfo, error) {
	id = model.URLID(id)
	var out []VersionInfo
	var first []byte // version 1's record, when its summary is to be derived
	err := s.view(func(tx *bolt.Tx) error {
		return incident.Each(tx, source, id, func(v []byte) error {
			h, derive, err := codec.DecodeHeader(v)
			if err != nil {
				return err
			}
			if derive {
				first = bytes.Clone(v)
			}
			out = append(out, VersionInfo{N: h.N, ObservedAt: h.ObservedAt, Summary: h.Summary, Snapshot: h.Snapshot, Fields: h.Fields})
			return nil
		})
	})
	if err == nil && first != nil {
		var v *model.Version
		if v, err = codec.DecodeVersion(first); err == nil {
			out[0].Summary = v.Summary
		}
	}
	if err != nil {
		return nil, wrapErr("versions "+source+"/"+id, err)
	}
	return out, nil
}

// VersionCount returns the number of an incident's latest version, from its incident
// record alone, or ErrNotFound.
func (s *Store) VersionCount(source, id string) (int, error) {
	id = model.URLID(id)
	n, err := read(s, "version count "+source+"/"+id, func(tx *bolt.Tx) (int, error) {
		m, ok, err := incident.LoadMeta(layout.Sub(layout.Source(tx, source), layout.BucketIncidents), id)
		if err == nil && !ok {
			err = ErrNotFound
		}
		return int(m.Latest), err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// Version returns version n of an incident, or ErrNotFound.
func (s *Store) Version(source, id string, n int) (*model.Version, error) {
	id = model.URLID(id)
	if n < 1 || n > 1<<32-1 {
		return nil, fmt.Errorf("archive: version %s/%s/%d: %w", source, id, n, ErrNotFound)
	}
	return read(s, "version "+source+"/"+id, func(tx *bolt.Tx) (*model.Version, error) {
		return incident.Load(layout.Sub(layout.Source(tx, source), layout.BucketVersions), id, uint32(n))
	})
}

// SnapshotAt returns the raw payload of source in force at t: the latest archived
// snapshot fetched at or before t, with its fetch time and its bodies decompressed. A body
// whose bytes were never archived (they changed nothing when fetched) comes back with
// nil Data. ErrNotFound when nothing was archived by t.
//
// A version's Snapshot field is such a time: SnapshotAt(source, parse(v.Snapshot)) gives
// the payload that produced it.
func (s *Store) SnapshotAt(source string, t time.Time) (time.Time, []model.Body, error) {
	var idx snapshot.Index
	var compressed [][]byte
	err := s.view(func(tx *bolt.Tx) (err error) {
		idx, compressed, err = snapshot.At(tx, source, s.timeKey(t))
		return err
	})
	if err != nil {
		return time.Time{}, nil, wrapErr("snapshot "+source, err)
	}
	out := make([]model.Body, len(idx.Bodies))
	for i, b := range idx.Bodies {
		out[i] = model.Body{Endpoint: b.Endpoint, Hash: b.Hash}
		if compressed[i] == nil {
			continue
		}
		if out[i].Data, err = s.bodies.Decompress(compressed[i]); err != nil {
			return time.Time{}, nil, fmt.Errorf("archive: snapshot %s: body %s: %w", source, b.Hash, err)
		}
	}
	return idx.FetchedAt, out, nil
}

// OpenCounts counts a source's open incidents by impact from the incident records alone,
// without decoding a version: the daemon's start-up and its gauges must not read (and map
// in) the whole archive. Records written before impacts were kept fall back to a decode.
func (s *Store) OpenCounts(source string) (map[model.Impact]int, error) {
	return read(s, "open counts "+source, func(tx *bolt.Tx) (map[model.Impact]int, error) {
		counts := map[model.Impact]int{}
		return counts, incident.CountOpen(layout.Source(tx, source), counts)
	})
}
