// Package web is mnemo's inspector (API-15): the files of web/static,
// embedded in the binary, and the handler that serves them with the
// headers they are written for. See web/README.md.
package web

import (
	"embed"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed static
var static embed.FS

// FS returns the inspector's files, index.html at the top.
func FS() fs.FS {
	sub, err := fs.Sub(static, "static")
	if err != nil {
		panic(err) // the embedded tree always has static/
	}
	return sub
}

// CSP is the Content-Security-Policy of every UI response: the app's own
// files only, no inline script or style, no framing.
const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

// Headers sets the security headers of a UI response on h.
func Headers(h http.Header) {
	h.Set("Content-Security-Policy", CSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
}

// types are the media types of the app's files, whatever the system's
// mime tables say (some map .js to application/javascript, or nothing).
var types = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".mjs":  "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".png":  "image/png",
	".json": "application/json",
}

// Handler serves GET and HEAD of / (index.html), /index.html and every
// other file of FS, with Headers and Cache-Control: no-cache (a new binary
// serves new files at once). Any other request, a directory or a file
// that is not there goes to next, which answers the API's 404.
func Handler(next http.Handler) http.Handler {
	files := FS()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			next.ServeHTTP(w, r)
			return
		}
		name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
		if name == "" {
			name = "index.html"
		}
		body, err := fs.ReadFile(files, name)
		if err != nil {
			next.ServeHTTP(w, r) // not a file: a directory, or nothing
			return
		}
		ct := types[path.Ext(name)]
		if ct == "" {
			if ct = mime.TypeByExtension(path.Ext(name)); ct == "" {
				ct = "application/octet-stream"
			}
		}
		h := w.Header()
		Headers(h)
		h.Set("Content-Type", ct)
		h.Set("Cache-Control", "no-cache")
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			w.Write(body)
		}
	})
}
