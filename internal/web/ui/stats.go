package ui

import (
	"cmp"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/web/param"
	"github.com/statuswatch/statuswatch/internal/web/query"
	"github.com/statuswatch/statuswatch/internal/web/view"
)

// statsView is the /stats page's view: every source's vendor figures in one table.
type statsView struct {
	Days    int
	Windows []statsLink // other windows to show
	Sorted  string      // the label of the column sorted by, "" for by name
	Desc    bool
	Head    []statsHead
	Rows    []statsRow
	// The phone's sort form (the table's headings are hidden there): the columns, the
	// one sorted by, and the order.
	SortKeys []statsLink
	Order    string
}

type statsLink struct {
	Label, URL string
	Current    bool
}

// statsHead is a column heading: a link that sorts by it, descending first, then
// ascending when it is the descending column already.
type statsHead struct {
	Label, Title, URL string
	Sort              string // "ascending", "descending" or "" (aria-sort)
	Num               bool
}

type statsRow struct {
	Source, Title, URL string
	Cells              []statsCell
}

type statsCell struct {
	Label, Text string
}

// statsWindows are the windows the page offers besides the one asked for.
var statsWindows = []int{30, 90, 365}

// Stats answers GET /stats?days=N&sort=col&order=asc|desc: the vendor figures of every
// source over the incidents that started in the last N days (default 90), one row each,
// configured sources in config order then retired ones by name, or sorted by a column
// (nulls last). 400 for a bad days, sort or order.
func (s *Site) Stats(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	days, err := param.Days(q, query.DefaultStatsDays, query.MaxStatsDays)
	if err != nil {
		s.Error(w, r, http.StatusBadRequest, "Bad request", err.Error())
		return
	}
	sortKey, order := q.Get("sort"), q.Get("order")
	var col view.StatsColumn
	if sortKey != "" && sortKey != "source" {
		var ok bool
		if col, ok = view.StatsColumnOf(sortKey); !ok {
			s.Error(w, r, http.StatusBadRequest, "Bad request", "sort: no column "+strconv.Quote(sortKey))
			return
		}
	}
	if order != "" && order != "asc" && order != "desc" {
		s.Error(w, r, http.StatusBadRequest, "Bad request", "order: want asc or desc, got "+strconv.Quote(order))
		return
	}
	desc := order == "desc" || order == "" && col.Key != ""

	rows, err := s.statsRows(days)
	if err != nil {
		s.pageArchiveError(w, r, err, "")
		return
	}
	switch {
	case col.Key != "":
		view.SortStats(rows, col, desc)
	case sortKey == "source":
		slices.SortStableFunc(rows, func(a, b api.SourceStats) int {
			if desc {
				a, b = b, a
			}
			ta, tb := s.title(a.Source), s.title(b.Source)
			return cmp.Or(strings.Compare(strings.ToLower(ta), strings.ToLower(tb)), strings.Compare(ta, tb))
		})
	}

	link := func(days int, sort, order string) string {
		v := url.Values{}
		v.Set("days", strconv.Itoa(days))
		if sort != "" {
			v.Set("sort", sort)
			v.Set("order", order)
		}
		return s.prefix + "/stats?" + v.Encode()
	}
	v := statsView{Days: days, Desc: desc}
	for _, d := range statsWindows {
		v.Windows = append(v.Windows, statsLink{Label: strconv.Itoa(d) + " days", URL: link(d, sortKey, order), Current: d == days})
	}
	head := func(key, label, title string, num, descFirst bool) statsHead {
		h := statsHead{Label: label, Title: title, Num: num}
		next := "desc"
		if !descFirst {
			next = "asc"
		}
		if key == sortKey {
			if desc {
				h.Sort, next = "descending", "asc"
			} else {
				h.Sort, next = "ascending", "desc"
			}
			v.Sorted = label
		}
		h.URL = link(days, key, next)
		return h
	}
	v.Head = append(v.Head, head("source", "Source", "the vendor", false, false))
	v.SortKeys = append(v.SortKeys, statsLink{Label: "Source", URL: "source", Current: sortKey == "source"})
	for _, c := range view.StatsColumns {
		v.Head = append(v.Head, head(c.Key, c.Label, c.Title, true, true))
		v.SortKeys = append(v.SortKeys, statsLink{Label: c.Label, URL: c.Key, Current: c.Key == sortKey})
	}
	v.Order = "asc"
	if desc {
		v.Order = "desc"
	}
	for i := range rows {
		row := statsRow{Source: rows[i].Source, Title: s.title(rows[i].Source), URL: s.paths.Source(rows[i].Source)}
		for _, c := range view.StatsColumns {
			row.Cells = append(row.Cells, statsCell{Label: c.Label, Text: c.Text(&rows[i])})
		}
		v.Rows = append(v.Rows, row)
	}
	s.render(w, r, http.StatusOK, "stats", &pageData{
		Title: "Vendor figures",
		Nav:   "stats",
		JSON:  s.prefix + "/api/v1/stats?days=" + strconv.Itoa(days),
		Data:  v,
	})
}

// statsRows is the figures of every source over days: the configured sources in config
// order, then the retired ones by name.
func (s *Site) statsRows(days int) ([]api.SourceStats, error) {
	var names []string
	for _, st := range s.sources() {
		names = append(names, st.Name)
	}
	return query.StatsRows(s.store, names, days, s.now())
}
