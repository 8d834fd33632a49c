package atom

import (
	"strings"
	"testing"
	"time"
)

func TestEncode(t *testing.T) {
	f := &Feed{ID: "tag:x,2026:f", Title: "a <b> & c", Updated: Time(time.Date(2026, 7, 1, 14, 0, 0, 5, time.FixedZone("", 7200))),
		Entries: []Entry{{ID: "e", Content: Text{Type: "html", Body: "<p>x</p>"}}}}
	data, err := f.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got := string(data)
	for _, want := range []string{`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<feed xmlns="http://www.w3.org/2005/Atom">`,
		"<title>a &lt;b&gt; &amp; c</title>", "<updated>2026-07-01T12:00:00Z</updated>",
		`  <entry>`, `<content type="html">&lt;p&gt;x&lt;/p&gt;</content>`} {
		if !strings.Contains(got, want) {
			t.Errorf("got\n%s\nwant it to contain %s", got, want)
		}
	}
	if !strings.HasSuffix(got, "</feed>\n") {
		t.Errorf("does not end in a newline: %q", got[len(got)-10:])
	}
}
