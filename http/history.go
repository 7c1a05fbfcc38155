package http

import (
	"errors"
	"net/http"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/importers"
)

// The route that imports another tool's history (IMP-1): the body is the
// file as the tool wrote it, read whole and checked before anything is
// stored (IMP-3).

var historyFormats = func() []string {
	out := make([]string, len(importers.Formats))
	for i, f := range importers.Formats {
		out[i] = string(f)
	}
	return out
}()

func (s *Server) historyRoutes() []route {
	return []route{
		{method: "POST", path: "/v1/import/history", summary: "Import history from another tool",
			doc: "The body is one file as the tool wrote it: from=chatgpt or claude, an export's conversations.json; claude-code, a session's JSON Lines (~/.claude/projects/<project>/<session>.jsonl); codex, a rollout file's JSON Lines (~/.codex/sessions/…/rollout-*.jsonl); mcp-memory, the MCP memory server's memory.json. " +
				"Each conversation becomes the session <from>:<conversation id>, each message an event memory keyed /history/<from>/<conversation>/<message> with its time and speaker (a Claude Code session and its turns as its hooks store them: claude-code-<session>, /claude-code/<session>/<uuid>); each entity's observations memories about it, each relation a link. " +
				"The whole body is checked first: a malformed one stores nothing and says where (line, or byte offset). Importing the same history again stores only what is new; the answer counts what was stored and skipped.",
			scopes: []string{ScopeWrite},
			params: []param{agentParam,
				{name: "from", schema: map[string]any{"type": "string", "enum": historyFormats}, required: true, doc: "The format of the body."}},
			bodyFile: "The file as the tool wrote it: JSON (chatgpt, claude) or JSON Lines (claude-code, codex, mcp-memory).",
			status:   200, resp: importers.Result{}, handler: s.handleImportHistory},
	}
}

func (s *Server) handleImportHistory(w http.ResponseWriter, r *http.Request) {
	byQuery(s, func(r *http.Request, sc mnemo.Scope) (importers.Result, error) {
		f, err := importers.ParseFormat(r.URL.Query().Get("from"))
		if err != nil {
			return importers.Result{}, mnemo.Errorf(mnemo.EINVALID, "from must be one of chatgpt, claude, claude-code, codex, mcp-memory")
		}
		h, err := importers.Read(f, "upload", http.MaxBytesReader(w, r.Body, s.maxBody))
		var tooLarge *http.MaxBytesError
		var se *importers.SyntaxError
		switch {
		case errors.As(err, &tooLarge):
			return importers.Result{}, mnemo.Errorf(mnemo.ETOOLARGE, "request body is over %d bytes; nothing imported", s.maxBody)
		case errors.As(err, &se):
			return importers.Result{}, mnemo.Errorf(mnemo.EINVALID, "%v; nothing imported", se)
		case err != nil:
			return importers.Result{}, err
		}
		var o importers.Options
		if l, ok := s.svc.(interface{ Limits() mnemo.Limits }); ok {
			o.Limits = l.Limits()
		}
		res, err := importers.Import(r.Context(), s.svc, sc, f, h, o)
		var pe *importers.PartialError
		if errors.As(err, &pe) {
			// The message says exactly what was stored before it stopped.
			return res, mnemo.Errorf(mnemo.ErrorCode(pe.Err), "%s", pe.Error())
		}
		return res, err
	})(w, r)
}
