package web

import (
	"encoding/csv"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statuswatch/statuswatch/internal/model"
)

// readCSV fetches path and parses it as CSV.
func (e *env) readCSV(path string) (response, [][]string) {
	e.tb.Helper()
	r := e.get(path, http.StatusOK)
	if got := r.header.Get("Content-Type"); got != "text/csv; charset=utf-8" {
		e.tb.Errorf("Content-Type: got %q", got)
	}
	rows, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
	if err != nil {
		e.tb.Fatalf("not CSV: %v\n%s", err, r.body)
	}
	return r, rows
}

func TestIncidentsCSV(t *testing.T) {
	e := newEnv(t).seed()
	hostile := model.Incident{ID: "h", Kind: model.KindIncident, Status: model.StatusInvestigating, Impact: model.ImpactMinor,
		StartedAt: t0.Add(time.Hour), Title: `=HYPERLINK("http://evil.test","click"), "quoted"` + "\nsecond line",
		URL: "@SUM(1+1)"}
	e.record("gamma", t0.Add(time.Hour), []model.Incident{hostile})

	t.Run("the JSON list's rows", func(t *testing.T) {
		var items []map[string]any
		e.getJSON("/api/v1/incidents", http.StatusOK, &items)
		_, rows := e.readCSV("/api/v1/incidents?format=csv")
		if !slices.Equal(rows[0], incidentsCSVHeader) {
			t.Fatalf("header: got %q", rows[0])
		}
		if len(rows) != len(items)+1 {
			t.Fatalf("got %d rows, want %d", len(rows)-1, len(items))
		}
		for i, it := range items {
			for j, col := range incidentsCSVHeader {
				var want string
				switch v := it[col].(type) {
				case nil:
				case string:
					want = v
				case float64:
					want = strconv.Itoa(int(v))
				case bool:
					want = strconv.FormatBool(v)
				}
				if it["source"] == "gamma" && (col == "title" || col == "url") {
					want = "'" + want // the formula guard
				}
				if got := rows[i+1][j]; got != want {
					t.Errorf("row %d %s: got %q, want %q", i+1, col, got, want)
				}
			}
		}
	})

	t.Run("formula injection", func(t *testing.T) {
		_, rows := e.readCSV("/api/v1/incidents?format=csv&source=gamma")
		if len(rows) != 2 {
			t.Fatalf("got %d rows", len(rows))
		}
		if got, want := rows[1][2], "'"+hostile.Title; got != want {
			t.Errorf("title: got %q, want %q", got, want)
		}
		for _, cell := range rows[1] {
			if cell != "" && strings.ContainsRune("=+-@", rune(cell[0])) {
				t.Errorf("cell %q starts a formula", cell)
			}
		}
	})

	t.Run("pages as the JSON list does", func(t *testing.T) {
		r, rows := e.readCSV("/api/v1/incidents?format=csv&limit=2")
		if len(rows) != 3 || r.header.Get("X-Next-Cursor") == "" {
			t.Fatalf("got %d rows, cursor %q", len(rows)-1, r.header.Get("X-Next-Cursor"))
		}
		if !strings.Contains(r.header.Get("Link"), "format=csv") {
			t.Errorf("Link: %q keeps no format", r.header.Get("Link"))
		}
	})

	t.Run("bad format", func(t *testing.T) {
		r := e.get("/api/v1/incidents?format=xml", http.StatusBadRequest)
		var body map[string]string
		json.Unmarshal(r.body, &body)
		if !strings.Contains(body["error"], "format") {
			t.Errorf("error: %q", body["error"])
		}
	})
}

func TestCSVCell(t *testing.T) {
	for in, want := range map[string]string{
		"": "", "plain": "plain", "=1+1": "'=1+1", "+1": "'+1", "-1": "'-1", "@A1": "'@A1", "\tx": "'\tx", "\rx": "'\rx",
		"a=b": "a=b", "'=x": "'=x",
	} {
		if got := csvCell(in); got != want {
			t.Errorf("csvCell(%q): got %q, want %q", in, got, want)
		}
	}
}
