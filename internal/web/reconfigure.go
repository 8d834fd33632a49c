package web

// Reconfigure applies a reloaded config to a running server: from the next request on,
// it answers as a server built with o would — with o's credentials (a rotated bearer
// token stops working at once) and o's base URL. Requests in flight finish as they
// began. The listener is not o's to change: a new listen address needs a restart.
func (s *Server) Reconfigure(o Options) {
	n := New(o)
	n.hooks = s.hooks // the hook's limits and queued polls carry over
	s.next.Store(n)
}
