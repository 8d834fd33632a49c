// Package export writes an incident's evidence bundle: one zip holding every archived
// version in the API's shape, the change set that made each, the raw payloads still
// retained that produced them, byte for byte as fetched, a Markdown report, and a
// manifest with the SHA-256 of every other file (docs/api.md, "Evidence export"). The
// zip is streamed: files are written as they are read, one version at a time, so memory
// stays at one version and one payload however long the history.
package export

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/diff"
	"github.com/statuswatch/statuswatch/internal/model"
)

// The bounds of one bundle. An incident's versions are its evidence and are all written,
// up to MaxVersions (a longer history is refused before a byte is written, with
// ErrTooLarge); raw payloads are written while their total stays within MaxSnapshotBytes,
// and the manifest lists the ones left out past it, with their hashes, under "omitted".
const (
	MaxVersions      = 10000
	MaxSnapshotBytes = 256 << 20
)

// ErrTooLarge is returned, before anything is written, for an incident with more than
// MaxVersions versions.
var ErrTooLarge = errors.New("too many versions to export")

// Manifest is manifest.json: what the bundle is of, when it was made, and every other
// file in it with its SHA-256 and size, in the order they were written.
type Manifest struct {
	Source     string     `json:"source"`
	ID         string     `json:"id"`
	ExportedAt api.Time   `json:"exported_at"`
	Files      []File     `json:"files"`
	Omitted    []Omission `json:"omitted"` // raw payloads not included, and why
	// Versions says, for each version, which raw payloads produced it: a body that
	// several versions' polls had (an endpoint unchanged between them) is in the bundle
	// once, under the first fetch that had it, and listed here for each.
	Versions []VersionFiles `json:"versions"`
}

// VersionFiles is one version of the manifest: its files, and the raw payload of the
// poll that made it, endpoint by endpoint.
type VersionFiles struct {
	Version    int        `json:"version"`
	ObservedAt api.Time   `json:"observed_at"`
	Incident   string     `json:"incident"` // versions/<n>.json
	Changes    string     `json:"changes"`  // changes/<n>.json
	FetchedAt  api.Time   `json:"fetched_at"`
	Payload    []Endpoint `json:"payload"`
}

// Endpoint is one endpoint's body in a version's raw payload: its path in the bundle,
// "" when it is not in it (see Manifest.Omitted).
type Endpoint struct {
	Endpoint string `json:"endpoint"`
	SHA256   string `json:"sha256"`
	Path     string `json:"path"`
}

// File is one file of the bundle. A raw payload also says which endpoint it was and
// when it was fetched.
type File struct {
	Path      string   `json:"path"`
	SHA256    string   `json:"sha256"` // hex
	Bytes     int64    `json:"bytes"`
	Endpoint  string   `json:"endpoint,omitempty"`
	FetchedAt api.Time `json:"fetched_at,omitzero"`
}

// Omission is a raw payload that produced a version but is not in the bundle.
type Omission struct {
	Version   int      `json:"version"`
	Endpoint  string   `json:"endpoint,omitempty"`
	SHA256    string   `json:"sha256,omitempty"` // hex, when known
	FetchedAt api.Time `json:"fetched_at"`
	Reason    string   `json:"reason"`
}

// Reasons a raw payload is left out.
const (
	ReasonPruned      = "pruned by retention.raw_snapshots"
	ReasonNotRetained = "its bytes are not in the archive (pruned, or never stored)"
	ReasonTooBig      = "over the bundle's limit for raw payloads"
	ReasonMissing     = "no raw payload archived with this version"
)

// Options say what to export and how to show it.
type Options struct {
	Store  *archive.Store
	Source string
	ID     string
	// Title is the source's display name, for the report.
	Title string
	// Now is the export time, written in the manifest.
	Now time.Time
	// Incident is the API's shape of version v of the incident (the answer of
	// /versions/{n}), of versions in all.
	Incident func(v *model.Version, versions int) api.Incident
}

// Check reports whether the incident can be exported: archive.ErrNotFound for an unknown
// one, ErrTooLarge for one past MaxVersions. It returns its version count.
func Check(o Options) (int, error) {
	infos, err := o.Store.VersionInfos(o.Source, o.ID)
	if err == nil && len(infos) == 0 {
		err = archive.ErrNotFound
	}
	if err != nil {
		return 0, err
	}
	if len(infos) > MaxVersions {
		return 0, fmt.Errorf("%w: %d, at most %d", ErrTooLarge, len(infos), MaxVersions)
	}
	return len(infos), nil
}

// Filename is the name a bundle is offered under: source-id.zip, with every character
// but letters, digits, '-', '_' and '.' replaced by '_'.
func Filename(source, id string) string {
	clean := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_', r == '.':
				return r
			}
			return '_'
		}, s)
	}
	return clean(source) + "-" + clean(model.URLID(id)) + ".zip"
}

// Write writes the bundle of o's incident to w as a zip. Check it first: an error of
// Write after its first byte leaves a truncated zip, which the caller must not pass off
// as complete.
func Write(w io.Writer, o Options) error {
	n, err := Check(o)
	if err != nil {
		return err
	}
	b := &bundle{o: o, zw: zip.NewWriter(w), written: map[string]string{}}
	b.manifest = Manifest{Source: o.Source, ID: model.URLID(o.ID), ExportedAt: api.Time(o.Now), Files: []File{}, Omitted: []Omission{},
		Versions: []VersionFiles{}}
	rep := newReport(o, n)
	var prev *model.Version
	for i := 1; i <= n; i++ {
		v, err := o.Store.Version(o.Source, o.ID, i)
		if err != nil {
			return fmt.Errorf("export: version %d: %w", i, err)
		}
		if err := b.version(v, n); err != nil {
			return err
		}
		if err := b.rawPayloads(v); err != nil {
			return err
		}
		rep.version(v, prev)
		prev = v
	}
	rep.end(prev, n)
	if err := b.file("report.md", rep.Bytes(), nil); err != nil {
		return err
	}
	data, err := json.MarshalIndent(b.manifest, "", "  ")
	if err != nil {
		return fmt.Errorf("export: manifest: %w", err)
	}
	if err := b.write("manifest.json", append(data, '\n')); err != nil {
		return err
	}
	return b.zw.Close()
}

// bundle is a zip being written and its manifest so far.
type bundle struct {
	o         Options
	zw        *zip.Writer
	manifest  Manifest
	snapBytes int64
	written   map[string]string // hash → path of the raw bodies written
}

// version writes versions/<n>.json and changes/<n>.json, and lists v in the manifest.
func (b *bundle) version(v *model.Version, versions int) error {
	vf := VersionFiles{Version: v.N, ObservedAt: api.Time(v.ObservedAt), Payload: []Endpoint{},
		Incident: "versions/" + strconv.Itoa(v.N) + ".json", Changes: "changes/" + strconv.Itoa(v.N) + ".json"}
	b.manifest.Versions = append(b.manifest.Versions, vf)
	if err := b.json(vf.Incident, b.o.Incident(v, versions)); err != nil {
		return err
	}
	cs := api.Diff{From: v.N - 1, To: v.N, Summary: v.Summary, Changes: make([]api.Change, len(v.Changes))}
	for i, c := range v.Changes {
		cs.Changes[i] = api.Change{Field: c.Field, Before: c.Before, After: c.After, Ops: c.Ops}
		if cs.Changes[i].Ops == nil {
			cs.Changes[i].Ops = []model.Op{}
		}
	}
	return b.json(vf.Changes, cs)
}

// rawPayloads writes the raw bodies of the snapshot that produced v, the ones still
// retained and within the bundle's limit, each once however many versions it produced,
// and lists them under v in the manifest.
func (b *bundle) rawPayloads(v *model.Version) error {
	vf := &b.manifest.Versions[len(b.manifest.Versions)-1]
	if v.Snapshot == "" {
		b.omit(Omission{Version: v.N, FetchedAt: api.Time(v.ObservedAt), Reason: ReasonMissing})
		return nil
	}
	at, err := time.Parse(time.RFC3339Nano, v.Snapshot)
	if err != nil {
		b.omit(Omission{Version: v.N, FetchedAt: api.Time(v.ObservedAt), Reason: ReasonMissing})
		return nil
	}
	vf.FetchedAt = api.Time(at)
	fetchedAt, bodies, err := b.o.Store.SnapshotAt(b.o.Source, at)
	if errors.Is(err, archive.ErrNotFound) || err == nil && !fetchedAt.Equal(at) {
		// Pruned: what is in force at that time now is an older snapshot, which did
		// not produce this version.
		b.omit(Omission{Version: v.N, FetchedAt: api.Time(at), Reason: ReasonPruned})
		return nil
	}
	if err != nil {
		return fmt.Errorf("export: raw payload of version %d: %w", v.N, err)
	}
	for _, body := range bodies {
		ep := Endpoint{Endpoint: body.Endpoint, SHA256: body.Hash, Path: b.written[body.Hash]}
		om := Omission{Version: v.N, Endpoint: body.Endpoint, SHA256: body.Hash, FetchedAt: api.Time(at)}
		switch {
		case ep.Path != "":
		case body.Data == nil:
			om.Reason = ReasonNotRetained
			b.omit(om)
		case b.snapBytes+int64(len(body.Data)) > MaxSnapshotBytes:
			om.Reason = ReasonTooBig
			b.omit(om)
		default:
			ep.Path = SnapshotPath(at, body.Hash, body.Data)
			b.written[body.Hash] = ep.Path
			b.snapBytes += int64(len(body.Data))
			if err := b.file(ep.Path, body.Data, &File{Endpoint: body.Endpoint, FetchedAt: api.Time(at)}); err != nil {
				return err
			}
		}
		vf.Payload = append(vf.Payload, ep)
	}
	return nil
}

func (b *bundle) omit(om Omission) { b.manifest.Omitted = append(b.manifest.Omitted, om) }

// SnapshotPath is where a raw body fetched at is stored in the bundle:
// snapshots/<fetched_at>-<the first 12 hex digits of its SHA-256>.<ext>, the time in UTC
// as 20060102T150405.000000000Z (sortable, and without the colons some file systems
// refuse), the extension guessed from the bytes (json, xml, html, txt, else bin).
func SnapshotPath(at time.Time, hash string, data []byte) string {
	if len(hash) > 12 {
		hash = hash[:12]
	}
	return "snapshots/" + at.UTC().Format("20060102T150405.000000000Z") + "-" + hash + "." + extension(data)
}

// extension guesses a body's file extension from its bytes.
func extension(data []byte) string {
	trimmed := bytes.TrimLeft(data, " \t\r\n\ufeff")
	switch {
	case json.Valid(data):
		return "json"
	case bytes.HasPrefix(trimmed, []byte("<?xml")), bytes.HasPrefix(trimmed, []byte("<rss")), bytes.HasPrefix(trimmed, []byte("<feed")):
		return "xml"
	}
	switch ct := http.DetectContentType(data); {
	case strings.HasPrefix(ct, "text/html"):
		return "html"
	case strings.HasPrefix(ct, "text/xml"):
		return "xml"
	case strings.HasPrefix(ct, "text/plain") && utf8.Valid(data):
		return "txt"
	}
	return "bin"
}

// json writes v as indented JSON at path.
func (b *bundle) json(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("export: %s: %w", path, err)
	}
	return b.file(path, append(data, '\n'), nil)
}

// file writes data at path and lists it in the manifest, with meta's endpoint and fetch
// time if given.
func (b *bundle) file(path string, data []byte, meta *File) error {
	if err := b.write(path, data); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	f := File{Path: path, SHA256: hex.EncodeToString(sum[:]), Bytes: int64(len(data))}
	if meta != nil {
		f.Endpoint, f.FetchedAt = meta.Endpoint, meta.FetchedAt
	}
	b.manifest.Files = append(b.manifest.Files, f)
	return nil
}

// write adds one file to the zip, compressed, stamped with the export time.
func (b *bundle) write(path string, data []byte) error {
	fw, err := b.zw.CreateHeader(&zip.FileHeader{Name: path, Method: zip.Deflate, Modified: b.o.Now.UTC()})
	if err != nil {
		return fmt.Errorf("export: %s: %w", path, err)
	}
	if _, err := fw.Write(data); err != nil {
		return fmt.Errorf("export: %s: %w", path, err)
	}
	return nil
}

// report is report.md being written.
type report struct {
	bytes.Buffer
	o Options
}

func newReport(o Options, versions int) *report {
	r := &report{o: o}
	fmt.Fprintf(r, "# Evidence: %s/%s\n\n", Escape(o.Source), Escape(model.URLID(o.ID)))
	fmt.Fprintf(r, "Exported %s from the statuswatch archive: %d version(s) of this incident as the vendor's page showed them.\n"+
		"manifest.json lists every file of this bundle with its SHA-256.\n\n", diff.FormatTime(o.Now), versions)
	return r
}

// version writes the timeline entry of v: when it was observed, its summary, and its
// change set as text in a code block.
func (r *report) version(v, prev *model.Version) {
	if v.N == 1 {
		r.WriteString("## Timeline\n\n")
	}
	fmt.Fprintf(r, "### Version %d — observed %s\n\n", v.N, diff.FormatTime(v.ObservedAt))
	if v.Summary != "" {
		fmt.Fprintf(r, "%s\n\n", Escape(v.Summary))
	}
	if v.Snapshot != "" {
		// Our own RFC 3339 time: a code span, exact and inert.
		fmt.Fprintf(r, "From the page as fetched at `%s`.\n\n", strings.ReplaceAll(v.Snapshot, "`", ""))
	}
	var before *model.Incident
	if prev != nil {
		before = &prev.Incident
	}
	text := diff.Terminal(v.Changes, diff.Plain, &v.Incident, before)
	if text == "" {
		text = "(no field changed)\n"
	}
	Code(&r.Buffer, text)
	r.WriteString("\n")
}

// end writes the incident as its latest version shows it, after the timeline.
func (r *report) end(latest *model.Version, versions int) {
	if latest == nil {
		return
	}
	inc := &latest.Incident
	r.WriteString("## The incident as last archived\n\n")
	fmt.Fprintf(r, "%s\n\n", Escape(diff.Description(r.o.Title, inc, r.o.Now)))
	fmt.Fprintf(r, "- Title: %s\n- Status: %s\n- Impact: %s\n- Versions: %d\n", Escape(inc.Title), Escape(string(inc.Status)),
		Escape(string(inc.Impact)), versions)
	if inc.URL != "" {
		fmt.Fprintf(r, "- Vendor page: %s\n", Escape(inc.URL))
	}
	r.WriteString("\n")
}

// Escape makes vendor text inert in Markdown: every ASCII punctuation character gets a
// backslash (CommonMark lets any of them be escaped so, and then reads it literally: no
// emphasis, link, HTML tag, entity or heading can start), and line breaks become spaces,
// so a value stays on its line.
func Escape(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		case r < 0x20 || r == 0x7f:
			// dropped: a control character has no business in a report
		case r < 0x80 && strings.ContainsRune("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// Code writes text as a fenced code block whose fence is longer than any run of
// backticks in it, so no line of the text can close it: inside, Markdown reads nothing.
func Code(w *bytes.Buffer, text string) {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	w.WriteString(fence + "text\n")
	w.WriteString(strings.ToValidUTF8(text, "\uFFFD"))
	if !strings.HasSuffix(text, "\n") {
		w.WriteString("\n")
	}
	w.WriteString(fence + "\n")
}

// Verify reads a bundle back: its manifest, and every file the manifest lists, checked
// against its SHA-256 and size. It fails on a file missing, altered or not listed.
// Files holds each file's bytes by path; a bundle is read whole, so Verify is for
// bundles of a size that fits in memory (every bundle Write makes, within its bounds).
func Verify(zr *zip.Reader) (m *Manifest, files map[string][]byte, err error) {
	files = map[string][]byte{}
	for _, f := range zr.File {
		if _, dup := files[f.Name]; dup {
			return nil, nil, fmt.Errorf("bundle: %s appears twice", f.Name)
		}
		rc, err := f.Open()
		if err != nil {
			return nil, nil, fmt.Errorf("bundle: %s: %w", f.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, MaxSnapshotBytes+1))
		rc.Close()
		if err != nil {
			return nil, nil, fmt.Errorf("bundle: %s: %w", f.Name, err)
		}
		files[f.Name] = data
	}
	raw, ok := files["manifest.json"]
	if !ok {
		return nil, nil, errors.New("bundle: no manifest.json")
	}
	m = &Manifest{}
	if err := json.Unmarshal(raw, m); err != nil {
		return nil, nil, fmt.Errorf("bundle: manifest.json: %w", err)
	}
	listed := map[string]bool{"manifest.json": true}
	for _, f := range m.Files {
		data, ok := files[f.Path]
		if !ok {
			return nil, nil, fmt.Errorf("bundle: %s is listed but missing", f.Path)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != f.SHA256 || int64(len(data)) != f.Bytes {
			return nil, nil, fmt.Errorf("bundle: %s: sha256 %s, %d bytes; the manifest says %s, %d bytes", f.Path, got, len(data), f.SHA256, f.Bytes)
		}
		listed[f.Path] = true
	}
	for name := range files {
		if !listed[name] {
			return nil, nil, fmt.Errorf("bundle: %s is not in the manifest", name)
		}
	}
	return m, files, nil
}
