package web

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
	"github.com/statuswatch/statuswatch/internal/web/export"
)

// readBundle fetches and verifies the bundle at path.
func (e *env) readBundle(path string) (*export.Manifest, map[string][]byte) {
	e.tb.Helper()
	r := e.get(path, http.StatusOK)
	if got := r.header.Get("Content-Type"); got != "application/zip" {
		e.tb.Errorf("Content-Type: got %q, want application/zip", got)
	}
	zr, err := zip.NewReader(bytes.NewReader(r.body), int64(len(r.body)))
	if err != nil {
		e.tb.Fatalf("not a zip: %v", err)
	}
	m, files, err := export.Verify(zr)
	if err != nil {
		e.tb.Fatal(err)
	}
	return m, files
}

func TestExport(t *testing.T) {
	e := newEnv(t).seed()
	m, files := e.readBundle("/api/v1/incidents/acme/inc-a/export")

	if m.Source != "acme" || m.ID != "inc-a" || !time.Time(m.ExportedAt).Equal(now) {
		t.Errorf("manifest: got %s/%s at %v, want acme/inc-a at %v", m.Source, m.ID, time.Time(m.ExportedAt), now)
	}
	var paths []string
	for _, f := range m.Files {
		paths = append(paths, f.Path)
	}
	want := []string{
		"versions/1.json", "changes/1.json", export.SnapshotPath(t0, hashOf(acmeBodies[0]), acmeBodies[0]),
		"versions/2.json", "changes/2.json", export.SnapshotPath(t0.Add(10*time.Minute), hashOf(acmeBodies[1]), acmeBodies[1]),
		"versions/3.json", "changes/3.json", export.SnapshotPath(t0.Add(30*time.Minute), hashOf(acmeBodies[2]), acmeBodies[2]),
		"report.md",
	}
	if !slices.Equal(paths, want) {
		t.Fatalf("files:\ngot  %q\nwant %q", paths, want)
	}
	if !strings.HasPrefix(want[2], "snapshots/20260701T120000.000000000Z-") || !strings.HasSuffix(want[2], ".json") {
		t.Errorf("snapshot path %q", want[2])
	}

	t.Run("raw payloads byte for byte", func(t *testing.T) {
		for i, b := range acmeBodies {
			if got := files[want[3*i+2]]; !bytes.Equal(got, b) {
				t.Errorf("%s: got %q, want %q", want[3*i+2], got, b)
			}
		}
		// Version 3's summary body was referenced by hash but never stored: listed as
		// left out, with its hash.
		if len(m.Omitted) != 1 || m.Omitted[0].Endpoint != "summary" || m.Omitted[0].SHA256 != hashOf([]byte(acmeSummary)) ||
			m.Omitted[0].Version != 3 || m.Omitted[0].Reason != export.ReasonNotRetained {
			t.Errorf("omitted: got %+v", m.Omitted)
		}
	})

	t.Run("each version's payload, endpoint by endpoint", func(t *testing.T) {
		if len(m.Versions) != 3 {
			t.Fatalf("manifest versions: %+v", m.Versions)
		}
		for i, v := range m.Versions {
			if v.Version != i+1 || len(v.Payload) == 0 || v.Payload[0].Endpoint != "incidents" || v.Payload[0].Path != want[3*i+2] {
				t.Errorf("version %d: %+v", i+1, v)
			}
			for _, ep := range v.Payload {
				if _, ok := files[ep.Path]; ep.Path != "" && !ok {
					t.Errorf("version %d: %s is not in the bundle", i+1, ep.Path)
				}
			}
		}
		if p := m.Versions[2].Payload; len(p) != 2 || p[1].Endpoint != "summary" || p[1].Path != "" {
			t.Errorf("version 3's payload: %+v", p)
		}
	})

	t.Run("versions and change sets as the API shows them", func(t *testing.T) {
		for n := 1; n <= 3; n++ {
			v := strconv.Itoa(n)
			for _, c := range []struct{ api, file string }{
				{"/api/v1/incidents/acme/inc-a/versions/" + v, "versions/" + v + ".json"},
				{"/api/v1/incidents/acme/inc-a/diff?from=" + strconv.Itoa(n-1) + "&to=" + v, "changes/" + v + ".json"},
			} {
				var fromAPI, inZip any
				e.getJSON(c.api, http.StatusOK, &fromAPI)
				if err := json.Unmarshal(files[c.file], &inZip); err != nil {
					t.Fatal(err)
				}
				a, _ := json.Marshal(fromAPI)
				z, _ := json.Marshal(inZip)
				if !bytes.Equal(a, z) {
					t.Errorf("%s:\nAPI %s\nzip %s", c.file, a, z)
				}
			}
		}
	})

	t.Run("report", func(t *testing.T) {
		rep := string(files["report.md"])
		for _, s := range []string{"# Evidence: acme/inc\\-a", "### Version 1 — observed", "### Version 3 — observed",
			"## The incident as last archived", "Elevated API errors", "{+ on the API+}"} {
			if !strings.Contains(rep, s) {
				t.Errorf("report.md lacks %q:\n%s", s, rep)
			}
		}
	})

	t.Run("unknown incident", func(t *testing.T) {
		r := e.get("/api/v1/incidents/acme/nope/export", http.StatusNotFound)
		if got := errorOf(t, r); got != "unknown incident" {
			t.Errorf("error: got %q", got)
		}
	})
}

func TestExportEscapesVendorText(t *testing.T) {
	e := newEnv(t)
	hostile := model.Incident{
		ID: "x", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMajor, StartedAt: t0,
		Title: "# Pwned [click](javascript:alert(1)) <script>alert(1)</script> *bold*",
		Updates: []model.Update{{ID: "u", Status: model.StatusInvestigating, PostedAt: t0, Format: model.FormatText,
			Body: "```\n# not a heading\n```` <img src=x onerror=alert(1)>"}},
	}
	e.record("acme", t0, []model.Incident{hostile}, body("incidents", []byte("<html>x</html>")))
	_, files := e.readBundle("/api/v1/incidents/acme/x/export")
	rep := string(files["report.md"])
	// Outside the code blocks, nothing of the vendor's reads as Markdown.
	outside := outsideCode(rep)
	for _, bad := range []string{"\n# Pwned", "[click](", "<script>", "*bold*", "# not a heading"} {
		if strings.Contains(outside, bad) {
			t.Errorf("report.md holds %q unescaped:\n%s", bad, outside)
		}
	}
	if !strings.Contains(outside, `\# Pwned \[click\]\(javascript\:alert\(1\)\) \<script\>`) {
		t.Errorf("report.md: the title is not escaped:\n%s", outside)
	}
	// The update's body sits in a fence longer than its longest run of backticks.
	if !strings.Contains(rep, "`````text\n") {
		t.Errorf("report.md: no five-backtick fence:\n%s", rep)
	}
	if _, ok := files[export.SnapshotPath(t0, hashOf([]byte("<html>x</html>")), []byte("<html>x</html>"))]; !ok {
		t.Errorf("no html snapshot in %v", keys(files))
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// outsideCode is a Markdown text without its fenced code blocks.
func outsideCode(md string) string {
	var b strings.Builder
	fence := ""
	for _, line := range strings.SplitAfter(md, "\n") {
		trimmed := strings.TrimRight(line, "\n")
		switch {
		case fence == "" && strings.HasPrefix(trimmed, "```"):
			fence = strings.TrimRight(trimmed, "abcdefghijklmnopqrstuvwxyz")
		case fence != "" && trimmed == fence:
			fence = ""
		case fence == "":
			b.WriteString(line)
		}
	}
	return b.String()
}
