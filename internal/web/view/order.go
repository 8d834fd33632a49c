package view

import (
	"cmp"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/statuswatch/statuswatch/internal/api"
	"github.com/statuswatch/statuswatch/internal/archive"
	"github.com/statuswatch/statuswatch/internal/web/param"
)

// Key is an incident's place in every list of incidents, the API's and the pages': newest
// first by start (see KeyOf), then id, then source, all descending. The source makes the
// key unique, which keyset paging needs.
type Key struct {
	At         time.Time
	Source, ID string
}

// KeyOf is the place of an archived incident: a scheduled maintenance starts when it is
// scheduled for; an incident whose vendor gives no start at all (some feeds) is placed by
// the time it was first archived (archive.IncidentInfo.ListedAt).
func KeyOf(in *archive.IncidentInfo) Key {
	return Key{At: in.ListedAt(), Source: in.Source, ID: in.ID}
}

// CompareKeys orders keys as the lists are: a before b is negative.
func CompareKeys(a, b Key) int {
	return cmp.Or(b.At.Compare(a.At), strings.Compare(b.ID, a.ID), strings.Compare(b.Source, a.Source))
}

// KeyPage reads the limit and before of a page of an incident list whose cursors, tagged
// kind, carry the key of a page's last incident (the time in api.TimeLayout, the source
// and the id): after is nil on the first page.
func KeyPage(r *http.Request, kind string) (p param.Page, after *Key, err error) {
	if p, err = param.ParsePage(r, kind, 3); err != nil || p.Before == nil {
		return p, nil, err
	}
	t, err := time.Parse(api.TimeLayout, p.Before[0])
	if err != nil {
		return p, nil, param.ErrBadCursor
	}
	return p, &Key{At: t, Source: p.Before[1], ID: p.Before[2]}, nil
}

// PageOf is a page of a list of incidents: those of infos after the key after (all
// when nil), in list order, at most limit; last is the key of the page's last incident
// when more follow, else nil.
func PageOf(infos []archive.IncidentInfo, after *Key, limit int) (page []*archive.IncidentInfo, last *Key) {
	page = make([]*archive.IncidentInfo, 0, min(len(infos), limit+1))
	for i := range infos {
		if after == nil || CompareKeys(KeyOf(&infos[i]), *after) > 0 {
			page = append(page, &infos[i])
		}
	}
	slices.SortFunc(page, func(a, b *archive.IncidentInfo) int { return CompareKeys(KeyOf(a), KeyOf(b)) })
	if len(page) > limit {
		page = page[:limit]
		k := KeyOf(page[len(page)-1])
		last = &k
	}
	return page, last
}
