// Package archive is statuswatch's only storage: a bbolt file that keeps every version of
// every incident and of every source's component set, the raw payloads that produced
// them, each source's fetch and failure state, and the outbox of notifications still to
// deliver.
//
// bbolt stays inside this package: callers get model types, never a transaction or a byte
// slice that points into the memory map. Every recorded snapshot is one write transaction,
// so a crash never leaves a version without its notification or the reverse, and a poll
// that changed nothing writes nothing at all, so the file grows with the number of
// distinct versions and never with the number of polls.
//
// The rules a Record applies are internal/archive/policy's, pure; the figures facts
// it reads are computed by internal/figures, pure too. Beneath the Store, which owns
// the transactions, are its internal packages: layout, the file's tree of buckets and
// keys and the migrations from older layouts; codec, the stored form of every value;
// and, each inside a transaction the Store holds, record, what one poll writes (its
// plan and its writes); incident, the metas and
// versions of each source's incidents; components, the versions of each source's
// component set; snapshot, the raw payloads behind the versions; outbox, the queue of
// messages and Slack threads; searchindex, the inverted index of every version that
// Search reads.
package archive
