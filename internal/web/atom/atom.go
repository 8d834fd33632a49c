// Package atom is the Atom document (RFC 4287) the feeds are written as. It is written
// with encoding/xml, which escapes every string and replaces characters XML cannot carry,
// so an entry's HTML content, whose vendor text is already escaped, is escaped once more
// inside it.
package atom

import (
	"bytes"
	"encoding/xml"
	"time"
)

// Feed is an Atom feed document.
type Feed struct {
	XMLName   xml.Name `xml:"http://www.w3.org/2005/Atom feed"`
	ID        string   `xml:"id"`
	Title     string   `xml:"title"`
	Updated   string   `xml:"updated"`
	Generator string   `xml:"generator"`
	Links     []Link   `xml:"link"`
	Entries   []Entry  `xml:"entry"`
}

// Link is a link of a feed or an entry.
type Link struct {
	Rel  string `xml:"rel,attr,omitempty"`
	Type string `xml:"type,attr,omitempty"`
	Href string `xml:"href,attr"`
}

// Entry is one entry of a feed.
type Entry struct {
	ID        string `xml:"id"`
	Title     string `xml:"title"`
	Updated   string `xml:"updated"`
	Published string `xml:"published"`
	Author    Person `xml:"author"`
	Links     []Link `xml:"link"`
	Summary   string `xml:"summary"`
	Content   Text   `xml:"content"`
}

// Person is an entry's author.
type Person struct {
	Name string `xml:"name"`
}

// Text is an entry's content, of a type ("html").
type Text struct {
	Type string `xml:"type,attr"`
	Body string `xml:",chardata"`
}

// Encode writes f as an XML document, indented, ending in a newline.
func (f *Feed) Encode() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// Time is how the feeds write a time: RFC 3339 in UTC, to the second.
func Time(t time.Time) string { return t.UTC().Format(time.RFC3339) }
