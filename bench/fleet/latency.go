package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/fakepage"
	"github.com/statuswatch/statuswatch/internal/fakeslack"
)

// latencyToken is the bot token the daemon sends the fake Slack of -latency.
const latencyToken = "xoxb-fleet-latency"

// latencyEvery is how often -latency changes pages: a new incident on the next page, and
// a follow-up on every open incident already announced whose last follow-up arrived.
const latencyEvery = 15 * time.Second

// latencyProbe changes pages during a daemon run and times each change until the fake
// Slack receives the message quoting it: every change carries a token ("[lat00042]")
// in its text.
type latencyProbe struct {
	fleet *fakepage.Fleet
	slack *fakeslack.Server
	n     int // tokens handed out

	pending map[string]latencyChange // token → change not yet seen in Slack
	// open are the pages with an open incident, by page: the token of the change on it
	// still awaited ("" when none is).
	open    map[int]string
	next    int // page for the next new incident
	results latencyResult
}

type latencyChange struct {
	followUp bool
	page     int
	at       time.Time
}

// latencyResult is what one run measured: vendor change → Slack, by kind.
type latencyResult struct {
	New, FollowUp           []time.Duration
	NewMissed, FollowMissed int // changes never seen in Slack by the end of the run
}

func newLatencyProbe(fleet *fakepage.Fleet) *latencyProbe {
	return &latencyProbe{fleet: fleet, slack: fakeslack.New(fakeslack.Options{Token: latencyToken}), pending: map[string]latencyChange{}, open: map[int]string{}}
}

func (l *latencyProbe) token() string {
	l.n++
	return fmt.Sprintf("[lat%05d]", l.n)
}

// step opens a new incident and follows up on the announced ones.
func (l *latencyProbe) step(pages int) {
	for page, awaited := range l.open {
		if awaited != "" {
			continue
		}
		tok := l.token()
		if l.fleet.FollowUp(page, "We have identified the cause and are deploying a fix "+tok+".") {
			l.pending[tok] = latencyChange{followUp: true, page: page, at: time.Now()}
			l.open[page] = tok
		}
	}
	if l.next < pages {
		tok := l.token()
		l.fleet.Open(l.next, "Elevated error rates "+tok, "We are investigating elevated error rates "+tok+".")
		l.pending[tok] = latencyChange{page: l.next, at: time.Now()}
		l.open[l.next] = tok
		l.next++
	}
}

// collect matches Slack's calls so far with the changes awaited.
func (l *latencyProbe) collect() {
	if len(l.pending) == 0 {
		return
	}
	for _, c := range l.slack.Calls() {
		text := c.Text + string(c.Blocks)
		for tok, ch := range l.pending {
			if !strings.Contains(text, tok) || c.At.Before(ch.at) {
				continue
			}
			if ch.followUp {
				l.results.FollowUp = append(l.results.FollowUp, c.At.Sub(ch.at))
			} else {
				l.results.New = append(l.results.New, c.At.Sub(ch.at))
			}
			delete(l.pending, tok)
			if l.open[ch.page] == tok {
				l.open[ch.page] = ""
			}
		}
	}
}

// finish counts the changes never seen and stops the fake Slack.
func (l *latencyProbe) finish() latencyResult {
	l.collect()
	for _, ch := range l.pending {
		if ch.followUp {
			l.results.FollowMissed++
		} else {
			l.results.NewMissed++
		}
	}
	l.slack.Close()
	return l.results
}

// percentiles are p50, p90 and the largest of ds.
func percentiles(ds []time.Duration) (p50, p90, top time.Duration) {
	if len(ds) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	at := func(q float64) time.Duration { return s[min(len(s)-1, int(q*float64(len(s))))] }
	return at(0.5), at(0.9), s[len(s)-1]
}

func formatLatency(ds []time.Duration, missed int) string {
	if len(ds) == 0 {
		return fmt.Sprintf("none arrived (%d missed)", missed)
	}
	p50, p90, top := percentiles(ds)
	return fmt.Sprintf("p50 **%.1f s**, p90 %.1f s, max %.1f s (%d changes; %d not arrived by the end)", p50.Seconds(), p90.Seconds(), top.Seconds(), len(ds), missed)
}
