package archive

import (
	"github.com/statuswatch/statuswatch/internal/archive/internal/incident"
	"github.com/statuswatch/statuswatch/internal/archive/internal/outbox"
	"github.com/statuswatch/statuswatch/internal/model"
	bolt "go.etcd.io/bbolt"
)

// SetRoute sets how the messages written from now on are routed: route gives the
// receivers of each (model.Message.Receiver values, "" for the default sink), and the
// message is written once for each of them, in the transaction that writes what it
// announces, so that every receiver has its own row and its own queue. nil, and no
// call at all, write one row for the default sink. The archive knows nothing of the
// config: the daemon hands it the config's routes, again on every reload.
func (s *Store) SetRoute(route func(*model.Notice) []string) {
	if route == nil {
		s.route.Store(nil)
		return
	}
	s.route.Store(&route)
}

// router is the route set by SetRoute, nil when none is.
func (s *Store) router() func(*model.Notice) []string {
	if p := s.route.Load(); p != nil {
		return *p
	}
	return nil
}

// put writes msg to the outbox once per receiver route gives n (nil route: once, for
// the default sink), and returns how many rows it wrote. A notification no route
// takes writes none: what it announces is archived all the same.
func put(tx *bolt.Tx, route func(*model.Notice) []string, msg model.Message, n *model.Notice) (int, error) {
	receivers := []string{""}
	if route != nil {
		receivers = route(n)
	}
	for i, r := range receivers {
		msg.Receiver = r
		if _, err := outbox.Put(tx, msg); err != nil {
			return i, err
		}
	}
	return len(receivers), nil
}

// latest is the latest version of one of the source's incidents, for the routing of a
// component message in its thread; nil when the incident is not archived.
func (w *writer) latest(id string) (*model.Incident, error) {
	m, ok, err := incident.LoadMeta(w.incidents, id)
	if err != nil || !ok {
		return nil, err
	}
	v, err := incident.Load(w.versions, id, m.Latest)
	if err != nil {
		return nil, err
	}
	return &v.Incident, nil
}

// peak gives the worst impact of incident id over its versions before n and inc (the
// version n being written), for a route's min_impact (model.Notice.Peak). It reads the
// earlier versions only when called; a version it cannot read counts for nothing.
func (w *writer) peak(id string, n uint32, inc *model.Incident) func() model.Impact {
	return func() model.Impact {
		worst := inc.Impact
		for k := uint32(1); k < n; k++ {
			v, err := incident.Load(w.versions, id, k)
			if err == nil && v.Incident.Impact.Worse(worst) {
				worst = v.Incident.Impact
			}
		}
		return worst
	}
}
