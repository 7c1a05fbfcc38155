package http

// Routes returns the patterns of the routes s registered from its table.
func (s *Server) Routes() []string {
	out := make([]string, len(s.routes))
	for i, rt := range s.routes {
		out[i] = rt.pattern()
	}
	return out
}

// RouteScopes returns the scopes each route may need, by pattern.
func (s *Server) RouteScopes() map[string][]string {
	out := make(map[string][]string, len(s.routes))
	for _, rt := range s.routes {
		out[rt.pattern()] = rt.scopes
	}
	return out
}

// BodyRoutes returns the patterns of the routes that read a JSON body, or a
// body of JSON Lines (lines true).
func (s *Server) BodyRoutes() (json, lines, files []string) {
	for _, rt := range s.routes {
		switch {
		case rt.body != nil:
			json = append(json, rt.pattern())
		case rt.bodyLines != nil:
			lines = append(lines, rt.pattern())
		case rt.bodyFile != "":
			files = append(files, rt.pattern())
		}
	}
	return json, lines, files
}
