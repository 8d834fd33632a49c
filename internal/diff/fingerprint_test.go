package diff

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// normalisedFingerprint is Fingerprint as it was first written: normalise's version,
// hashed field by field. Fingerprint writes the same bytes without building the version;
// the tests below hold the two together, since the archive stores fingerprints and
// compares them with those of new polls.
func normalisedFingerprint(inc *model.Incident) [32]byte {
	v := normalise(inc)
	var buf []byte
	put := func(s string) {
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	value := func(v value) {
		if v.text {
			put(normSpace(v.show))
		} else {
			put(v.key)
		}
	}
	put("statuswatch/diff.Fingerprint v1")
	for _, s := range v.scalars {
		value(s.v)
	}
	ups := slices.Clone(v.updates)
	slices.SortFunc(ups, func(x, y normUpdate) int { return strings.Compare(x.id, y.id) })
	buf = binary.AppendUvarint(buf, uint64(len(ups)))
	for _, u := range ups {
		put(u.id)
		value(u.body)
		value(u.status)
	}
	value(v.pmBody)
	value(v.pmAt)
	return sha256.Sum256(buf)
}

// TestFingerprintAsNormalised checks Fingerprint against the normalised version's hash
// for every variant of the property test (duplicate ids, unsorted and spaced components,
// an empty postmortem among them).
func TestFingerprintAsNormalised(t *testing.T) {
	for name, inc := range fingerprintVariants() {
		if got, want := Fingerprint(inc), normalisedFingerprint(inc); got != want {
			t.Errorf("%s: got fingerprint %x, want the normalised version's %x", name, got[:6], want[:6])
		}
	}
}

// FuzzFingerprint builds an incident from arbitrary strings (components and updates cut
// from them at '|') and checks Fingerprint against the normalised version's hash, and
// that an incident and its cosmetic rewrite (components reversed, updates reversed,
// whitespace doubled) fingerprint alike.
func FuzzFingerprint(f *testing.F) {
	f.Add("Elevated API error rates", "API|Dashboard", "u1|u2|u1", "We are investigating.|Fixed.", "RCA", int64(1741097100))
	f.Add(" 東京で 障害 ", "b| a |a||", "", "", "", int64(0))
	f.Add("\u00a0x\u2003", "\x00|\xff", "z|y|x", "a\nb|\tc", " ", int64(-62135596800))
	f.Fuzz(func(t *testing.T, title, components, ids, bodies, pm string, unix int64) {
		inc := &model.Incident{Title: title, Status: model.Status(pm), Components: strings.Split(components, "|")}
		if unix != 0 {
			inc.StartedAt = time.Unix(unix%(1<<40), 0).In(time.FixedZone("x", 3600))
		}
		bs := strings.Split(bodies, "|")
		for i, id := range strings.Split(ids, "|") {
			inc.Updates = append(inc.Updates, model.Update{ID: id, Body: bs[i%len(bs)], Status: model.Status(title)})
		}
		if pm != "" {
			inc.Postmortem = &model.Postmortem{Body: pm, PublishedAt: inc.StartedAt}
		}
		got := Fingerprint(inc)
		if want := normalisedFingerprint(inc); got != want {
			t.Fatalf("got fingerprint %x, want the normalised version's %x", got[:6], want[:6])
		}
		cosmetic := clone(inc)
		slices.Reverse(cosmetic.Components)
		cosmetic.Title = strings.ReplaceAll(" "+title, " ", "  ")
		if got != Fingerprint(cosmetic) || len(Changes(inc, cosmetic)) != 0 {
			t.Fatalf("a cosmetic rewrite changed the fingerprint or the change set: %q", briefs(Changes(inc, cosmetic)))
		}
	})
}

func TestNormSpace(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "  ": "", "a": "a", "a b": "a b", " a b": "a b", "a b ": "a b", "a  b": "a b",
		"a\tb": "a b", "a\nb c": "a b c", "a\u00a0b": "a b", "東京 障害": "東京 障害", "a\u2003": "a",
	} {
		if got := normSpace(in); got != want {
			t.Errorf("normSpace(%q) = %q, want %q", in, got, want)
		}
		if got := isNormalSpace(in); got != (in == want) {
			t.Errorf("isNormalSpace(%q) = %v, want %v", in, got, in == want)
		}
	}
}
