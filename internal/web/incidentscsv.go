package web

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
)

// incidentsCSVHeader names the columns of GET /api/v1/incidents?format=csv: the fields
// of api.IncidentItem, in its order.
var incidentsCSVHeader = []string{"source", "id", "title", "status", "impact", "kind", "started_at", "resolved_at",
	"versions", "url", "ui_url", "removed", "last_changed_at"}

// writeIncidentsCSV answers a page of the incident list as CSV (RFC 4180, via
// encoding/csv): a header row, then one row per incident; times RFC 3339 UTC, empty
// when not given. Vendor text is disarmed for spreadsheets (csvCell).
func writeIncidentsCSV(w http.ResponseWriter, items []api.IncidentItem) {
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="incidents.csv"`)
	w.WriteHeader(http.StatusOK)
	cw := csv.NewWriter(w)
	_ = cw.Write(incidentsCSVHeader)
	for _, in := range items {
		_ = cw.Write([]string{
			csvCell(in.Source), csvCell(in.ID), csvCell(in.Title), csvCell(string(in.Status)), csvCell(string(in.Impact)),
			csvCell(string(in.Kind)), csvTime(in.StartedAt), csvTime(in.ResolvedAt), strconv.Itoa(in.Versions),
			csvCell(in.URL), csvCell(in.UIURL), strconv.FormatBool(in.Removed), csvTime(in.LastChangedAt),
		})
	}
	cw.Flush()
}

// csvCell guards a text cell against CSV (formula) injection: a spreadsheet runs a
// cell that starts with =, +, -, @, a tab or a carriage return as a formula
// (=HYPERLINK(…), =cmd|…), so such a cell gets a leading single quote, which
// spreadsheets show as text and a reader can strip. The cell is otherwise as is: quoting
// of commas, quotes and line breaks is encoding/csv's.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// csvTime is a time cell: RFC 3339 UTC, empty for "not given".
func csvTime(t api.Time) string {
	tt := time.Time(t)
	if tt.IsZero() {
		return ""
	}
	return tt.UTC().Format(timeLayout)
}
