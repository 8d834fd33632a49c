package archive

import (
	"github.com/statuswatch/statuswatch/internal/model"
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
