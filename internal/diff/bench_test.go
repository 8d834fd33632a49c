package diff

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

var vocabulary = strings.Fields(`we are investigating elevated error rates on the API and dashboard
some users may see failed requests timeouts or degraded performance the issue has been identified
as a misconfigured load balancer health check that restarted healthy nodes in one region a fix has
been deployed and we are monitoring the results this incident has been resolved customers using
webhooks experienced delays database connections were exhausted by a retry storm from internal
services engineers rolled back the change at UTC traffic recovered gradually over minutes`)

// benchText is a deterministic prose-like text of about size bytes: lines of 8 to 20
// words, a blank line every few lines, as a long postmortem reads.
func benchText(seed uint64, size int) []string {
	r := rand.New(rand.NewPCG(seed, seed))
	var words []string
	n := 0
	for n < size {
		w := vocabulary[r.IntN(len(vocabulary))]
		words = append(words, w)
		n += len(w) + 1
	}
	return words
}

func joinText(seed uint64, words []string) string {
	r := rand.New(rand.NewPCG(seed, 99))
	var b strings.Builder
	line := 0
	for i, w := range words {
		b.WriteString(w)
		line++
		switch {
		case line >= 8+r.IntN(13):
			b.WriteString(".\n")
			if r.IntN(4) == 0 {
				b.WriteString("\n")
			}
			line = 0
		case i < len(words)-1:
			b.WriteString(" ")
		}
	}
	return b.String()
}

// BenchmarkWords100KB1Percent is the diff's budget: two 100 KB texts that differ in 1% of
// their words, under 50 ms.
func BenchmarkWords100KB1Percent(b *testing.B) {
	vocab := benchText(1, 100_000)
	before := joinText(1, vocab)
	edited := slices.Clone(vocab)
	r := rand.New(rand.NewPCG(2, 2))
	for i := range edited {
		if r.IntN(100) == 0 {
			edited[i] = "changed"
		}
	}
	after := joinText(1, edited)
	_, p := words(before, after)
	b.Logf("%d + %d bytes, path %v", len(before), len(after), p)
	b.ReportAllocs()
	for b.Loop() {
		Words(before, after)
	}
}

// BenchmarkWordsUnrelated100KB shows the fallbacks bounding the work on two unrelated
// 100 KB texts.
func BenchmarkWordsUnrelated100KB(b *testing.B) {
	before := joinText(1, benchText(1, 100_000))
	after := joinText(3, benchText(3, 100_000))
	_, p := words(before, after)
	b.Logf("%d + %d bytes, path %v", len(before), len(after), p)
	b.ReportAllocs()
	for b.Loop() {
		Words(before, after)
	}
}

// BenchmarkChanges compares a 50-update incident with an edited copy: a status change,
// five edited update bodies, two added updates and a postmortem.
func BenchmarkChanges(b *testing.B) {
	before := &model.Incident{
		ID: "bench", Kind: model.KindIncident, Status: model.StatusMonitoring, Impact: model.ImpactMajor,
		Title: "Elevated API error rates", StartedAt: time.Date(2025, 3, 4, 14, 5, 0, 0, time.UTC),
		Components: []string{"API", "Dashboard", "Webhooks"},
	}
	for i := range 50 {
		before.Updates = append(before.Updates, model.Update{
			ID: fmt.Sprintf("u%02d", i), Status: model.StatusMonitoring, Format: model.FormatText,
			Body:     joinText(uint64(i), benchText(uint64(i), 600)),
			PostedAt: before.StartedAt.Add(time.Duration(i) * 10 * time.Minute),
		})
	}
	after := clone(before)
	after.Status = model.StatusResolved
	for _, i := range []int{3, 11, 23, 37, 49} {
		after.Updates[i].Body = strings.Replace(after.Updates[i].Body, " the ", " a ", 2)
	}
	after.Updates = append(after.Updates,
		model.Update{ID: "u50", Status: model.StatusResolved, Body: "This incident has been resolved."},
		model.Update{ID: "u51", Status: model.StatusPostmortem, Body: "We published a postmortem."})
	after.Postmortem = &model.Postmortem{Body: joinText(7, benchText(7, 5000))}
	b.ReportAllocs()
	for b.Loop() {
		Changes(before, after)
	}
}

// BenchmarkFingerprint hashes the same 50-update incident.
func BenchmarkFingerprint(b *testing.B) {
	inc := &model.Incident{Title: "Elevated API error rates", Components: []string{"API"}}
	for i := range 50 {
		inc.Updates = append(inc.Updates, model.Update{ID: fmt.Sprintf("u%02d", i), Body: joinText(uint64(i), benchText(uint64(i), 600))})
	}
	b.ReportAllocs()
	for b.Loop() {
		Fingerprint(inc)
	}
}

// BenchmarkWordsUnrelatedAtBudget is the worst case of the word path: two unrelated
// texts whose tokens just fit tokenBudget.
func BenchmarkWordsUnrelatedAtBudget(b *testing.B) {
	// About 2 tokens per word (the word and a space or a full stop and a newline).
	before := joinText(1, benchText(1, 1_000_000)[:tokenBudget/4-100])
	after := joinText(3, benchText(3, 1_000_000)[:tokenBudget/4-100])
	_, p := words(before, after)
	b.Logf("%d + %d tokens, path %v", len(tokenize(before)), len(tokenize(after)), p)
	b.ReportAllocs()
	for b.Loop() {
		Words(before, after)
	}
}
