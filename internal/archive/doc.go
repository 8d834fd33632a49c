// Package archive is statuswatch's only storage: a bbolt file that keeps every version of
// every incident, the raw payloads that produced them, each source's fetch and failure
// state, and the outbox of notifications still to deliver.
//
// bbolt stays inside this package: callers get model types, never a transaction or a byte
// slice that points into the memory map. Every recorded snapshot is one write transaction,
// so a crash never leaves a version without its notification or the reverse, and a poll
// that changed nothing writes nothing at all, so the file grows with the number of
// distinct versions and never with the number of polls.
//
// Layout 3 (every key sorts; "BE" is big-endian):
//
//	meta                          "layout" → BE uint32 (3); "created" → RFC 3339 time
//	sources/<name>/               one nested bucket per source
//	    state/                    "first" → time of the first Record (first-poll policy)
//	                              "fetch" → model.FetchState JSON (validators, body hashes, AWS episodes)
//	                              "health" → consecutive failures, last error, down flag
//	    incidents/<url id>        → incident meta, a small binary record (codec.Meta)
//	    versions/<url id>\x00<BE uint32 n> → version record: a small header (number, time, summary,
//	                              fields) and the S2-compressed model.Version JSON, version 1 without
//	                              its change set (codec.EncodeRecord); the bare JSON of before still reads
//	    snapshots/<BE uint64 unix s, sign bit flipped><BE uint32 ns> → snapshot index JSON: fetch time,
//	                              endpoint → body hash (layout 1: BE uint64 unix ns)
//	    threads/<url id>          → Slack thread {channel, ts, edit} JSON (edit: the reply whose root update is owed)
//	bodies/<hex sha256>           → S2-compressed raw body (zstd before), shared by every snapshot
//	outbox/<BE uint64 seq>        → model.Message JSON, pending or parked
//	sent/<BE uint64 seq>          → model.Message JSON, delivered (same sequence as outbox)
//
// Versions live in one flat bucket per source rather than a nested bucket per incident:
// bbolt gives every nested bucket that outgrows a quarter page its own page, so 100,000
// incidents would cost at least 400 MB of mostly empty pages; flat keys pack them densely
// and a prefix scan still reads one incident's versions in order.
package archive
