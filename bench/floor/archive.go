package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/klauspost/compress/s2"
	bolt "go.etcd.io/bbolt"
)

// The archiving floor (-archive FILE): the least an archive of a cold round's evidence can
// do on top of fetch, hash and decode, written the most direct way with bbolt. What
// watcher must keep (docs/design.md §4 "archive.Record: one transaction") is every version
// of every incident and the raw bodies that produced them; in a cold round every incident
// is new, so that is each raw body once and each decoded incident once. Left out, because
// a cold round can do without them: fingerprints (the next round can compare the stored
// form itself), change sets (version 1 has none), an outbox, a search index, metadata.
var (
	bodiesBucket    = []byte("bodies")    // SHA-256 of the raw body → its S2 block
	incidentsBucket = []byte("incidents") // source \x00 incident ID → the decoded incident
	statesBucket    = []byte("states")    // source → ETag and body hash, for the next round's conditional GET
)

// archived is one page's part of the archive, prepared by the worker that fetched it so
// that the CPU work (compression, encoding) runs beside the other fetches, as much of it
// as can, and the single writer only puts.
type archived struct {
	source    string
	hash      [sha256.Size]byte
	block     []byte      // S2 of the raw body
	incidents [][2][]byte // key, value
	etag      string
}

// archiver is the one writer of the archive: bbolt allows one write transaction at a
// time, so every page goes through it.
type archiver struct {
	db    *bolt.DB
	form  string // "binary" or "json": the stored form of an incident
	batch int    // pages per write transaction
	in    chan *archived
	done  chan error
}

// openArchive creates the archive file afresh. Every commit but the last skips its
// fdatasync (NoSync): one fdatasync per round is the least a durable round can do, where
// watcher syncs each batch of Records.
func openArchive(path, form string, batch int) (*archiver, error) {
	if form != "binary" && form != "json" {
		return nil, fmt.Errorf("-form %q: want binary or json", form)
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, NoSync: true})
	if err != nil {
		return nil, err
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		for _, b := range [][]byte{bodiesBucket, incidentsBucket, statesBucket} {
			if _, err := tx.CreateBucket(b); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		db.Close()
		return nil, err
	}
	a := &archiver{db: db, form: form, batch: max(batch, 1), in: make(chan *archived, 2*batch), done: make(chan error, 1)}
	go func() { a.done <- a.write() }()
	return a, nil
}

var scratchPool = sync.Pool{New: func() any { return new([]byte) }}

// prepare is a worker's share: compress the body and encode each incident.
func (a *archiver) prepare(source, etag string, hash [sha256.Size]byte, body []byte, d *doc) (*archived, error) {
	// Into a scratch buffer of the worker's, then copied at its size: s2.Encode(nil, …)
	// would allocate (and zero) its worst case, more than the body, for every page.
	scratch := scratchPool.Get().(*[]byte)
	if n := s2.MaxEncodedLen(len(body)); cap(*scratch) < n {
		*scratch = make([]byte, n)
	}
	p := &archived{source: source, hash: hash, etag: etag, block: bytes.Clone(s2.Encode((*scratch)[:cap(*scratch)], body))}
	scratchPool.Put(scratch)
	for i := range *d.Incidents {
		inc := &(*d.Incidents)[i]
		var v []byte
		if a.form == "json" {
			var err error
			if v, err = json.Marshal(inc); err != nil {
				return nil, err
			}
		} else {
			v = appendIncident(make([]byte, 0, incidentSize(inc)), inc)
		}
		p.incidents = append(p.incidents, [2][]byte{[]byte(source + "\x00" + inc.ID), v})
	}
	return p, nil
}

// write puts the pages as they come, a write transaction of a.batch pages at a time, and
// syncs the file once at the end (close a.in to end the round).
func (a *archiver) write() (err error) {
	var tx *bolt.Tx
	defer func() {
		if tx != nil {
			tx.Rollback()
		}
		for range a.in { // the workers must not block on a failed writer
		}
	}()
	n := 0
	for p := range a.in {
		if tx == nil {
			if tx, err = a.db.Begin(true); err != nil {
				return err
			}
		}
		if err := put(tx, p); err != nil {
			return err
		}
		if n++; n%a.batch == 0 {
			err, tx = tx.Commit(), nil
			if err != nil {
				return err
			}
		}
	}
	if tx != nil {
		err, tx = tx.Commit(), nil
		if err != nil {
			return err
		}
	}
	return a.db.Sync()
}

func put(tx *bolt.Tx, p *archived) error {
	// A body is stored once per distinct hash, as watcher does.
	if bodies := tx.Bucket(bodiesBucket); bodies.Get(p.hash[:]) == nil {
		if err := bodies.Put(p.hash[:], p.block); err != nil {
			return err
		}
	}
	incidents := tx.Bucket(incidentsBucket)
	for _, kv := range p.incidents {
		if err := incidents.Put(kv[0], kv[1]); err != nil {
			return err
		}
	}
	return tx.Bucket(statesBucket).Put([]byte(p.source), append([]byte(p.etag+"\x00"), p.hash[:]...))
}

// close ends the round: waits for the writer's last commit and sync.
func (a *archiver) close() error {
	close(a.in)
	err := <-a.done
	return errors.Join(err, a.db.Close())
}

// appendIncident is a compact binary form of an incident: each string with its uvarint
// length, each list with its uvarint count, in a fixed order. No field names, no
// escaping, no parsing of times: the least an encoding that can be read back can do.
func appendIncident(b []byte, inc *incident) []byte {
	for _, s := range [...]string{inc.ID, inc.Name, inc.Status, inc.Impact, inc.Shortlink, inc.CreatedAt, inc.StartedAt,
		inc.ResolvedAt, inc.ScheduledFor, inc.ScheduledUntil, inc.PostmortemBody, string(inc.PostmortemPublishedAt)} {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(inc.Components)))
	for _, c := range inc.Components {
		b = appendString(appendString(b, c.ID), c.Name)
	}
	b = binary.AppendUvarint(b, uint64(len(inc.Updates)))
	for _, u := range inc.Updates {
		for _, s := range [...]string{u.ID, u.Status, u.Body, u.CreatedAt, u.DisplayAt} {
			b = appendString(b, s)
		}
		b = binary.AppendUvarint(b, uint64(len(u.AffectedComponents)))
		for _, c := range u.AffectedComponents {
			b = appendString(appendString(b, c.Code), c.Name)
		}
	}
	return b
}

// incidentSize is the length of appendIncident's form, so that it is allocated once.
func incidentSize(inc *incident) int {
	n := 0
	for _, s := range [...]string{inc.ID, inc.Name, inc.Status, inc.Impact, inc.Shortlink, inc.CreatedAt, inc.StartedAt,
		inc.ResolvedAt, inc.ScheduledFor, inc.ScheduledUntil, inc.PostmortemBody, string(inc.PostmortemPublishedAt)} {
		n += binary.MaxVarintLen64 + len(s)
	}
	n += 2 * binary.MaxVarintLen64
	for _, c := range inc.Components {
		n += 2*binary.MaxVarintLen64 + len(c.ID) + len(c.Name)
	}
	for _, u := range inc.Updates {
		n += 6*binary.MaxVarintLen64 + len(u.ID) + len(u.Status) + len(u.Body) + len(u.CreatedAt) + len(u.DisplayAt)
		for _, c := range u.AffectedComponents {
			n += 2*binary.MaxVarintLen64 + len(c.Code) + len(c.Name)
		}
	}
	return n
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
