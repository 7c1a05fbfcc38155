package web_test

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mnemo-dev/mnemo/web"
)

// TestHandler checks the embedded files and what the handler passes on
// (API-15); http's TestUIServed checks it mounted in the server.
func TestHandler(t *testing.T) {
	for _, name := range []string{"index.html", "app.js", "api.js", "style.css", "views/memories.js"} {
		if _, err := fs.Stat(web.FS(), name); err != nil {
			t.Errorf("%s is not embedded: %v", name, err)
		}
	}
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := web.Handler(next)
	for _, tt := range []struct {
		method, path string
		status       int
		ctype        string
	}{
		{"GET", "/", 200, "text/html; charset=utf-8"},
		{"HEAD", "/index.html", 200, "text/html; charset=utf-8"},
		{"GET", "/api.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/favicon.svg", 200, "image/svg+xml"},
		{"GET", "/views", 418, ""},
		{"GET", "/missing.js", 418, ""},
		{"PUT", "/index.html", 418, ""},
		{"GET", "/../web.go", 418, ""},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		if rec.Code != tt.status || rec.Header().Get("Content-Type") != tt.ctype {
			t.Errorf("%s %s: %d %q, want %d %q", tt.method, tt.path, rec.Code, rec.Header().Get("Content-Type"), tt.status, tt.ctype)
		}
		if tt.status == 200 && (rec.Header().Get("Content-Security-Policy") != web.CSP || rec.Header().Get("X-Frame-Options") != "DENY") {
			t.Errorf("%s %s: security headers missing: %v", tt.method, tt.path, rec.Header())
		}
	}
}
