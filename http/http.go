// Package http serves mnemo's JSON API over HTTP. It is a thin adapter: it
// decodes requests, calls the service.Mnemo and encodes answers; domain
// errors become RFC 9457 problem+json bodies with a stable code.
//
// Around the handlers it authenticates API keys (auth.go), limits the rate
// and the time of requests (limit.go), measures them for Prometheus and
// logs them (metrics.go). One table of routes (routes.go) registers the
// handlers and generates the OpenAPI document (openapi.go), so the two
// cannot drift apart.
package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/timejson"
)

// ERATELIMITED is the domain's rate-limit code, kept here for callers of
// this package.
const ERATELIMITED = mnemo.ERATELIMITED

// codeStatus maps error codes to HTTP statuses. Only this package knows
// HTTP; a client reads a problem's code, not its status.
var codeStatus = map[string]int{
	mnemo.EINVALID:      http.StatusBadRequest,
	mnemo.EUNAUTHORIZED: http.StatusUnauthorized,
	mnemo.EFORBIDDEN:    http.StatusForbidden,
	mnemo.ENOTFOUND:     http.StatusNotFound,
	mnemo.ECONFLICT:     http.StatusConflict,
	mnemo.EMISMATCH:     http.StatusConflict,
	mnemo.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	ERATELIMITED:        http.StatusTooManyRequests,
	mnemo.EUNAVAILABLE:  http.StatusServiceUnavailable,
	mnemo.EINTERNAL:     http.StatusInternalServerError,
}

// Problem is an RFC 9457 problem details body with mnemo's code.
type Problem struct {
	Type     string `json:"type"`
	Title    string `json:"title"`
	Status   int    `json:"status"`
	Detail   string `json:"detail,omitempty"`
	Instance string `json:"instance,omitempty"`
	Code     string `json:"code"`
}

// Error is a problem returned to a client, as an error.
func (p *Problem) Error() string {
	return fmt.Sprintf("%s (%d %s): %s", p.Code, p.Status, p.Title, p.Detail)
}

func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := mnemo.ErrorCode(err)
	msg := mnemo.ErrorMessage(err)
	if code == mnemo.EINTERNAL && r.Context().Err() != nil {
		// The store gave up because the request timed out or its client
		// went away: not a bug, and not worth an error in the log.
		code, msg = mnemo.EUNAVAILABLE, "the request timed out or was cancelled"
	}
	if code == mnemo.EINTERNAL {
		s.log.Error("internal error", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	status, ok := codeStatus[code]
	if !ok {
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	writeProblemBody(w, status, code, msg, r.URL.Path)
}

func writeProblemBody(w io.Writer, status int, code, detail, instance string) {
	json.NewEncoder(w).Encode(Problem{
		Type:     "https://mnemo.dev/problems/" + strings.ReplaceAll(code, "_", "-"),
		Title:    http.StatusText(status),
		Status:   status,
		Detail:   detail,
		Instance: instance,
		Code:     code,
	})
}

// writeJSON writes v as the answer to r, leaving vectors out unless r asked
// for them. What the key may not read was masked by the service (SEC-8).
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	if !wantsEmbedding(r) {
		v = mnemo.DropEmbeddings(v)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func strictDecoder(b []byte) *json.Decoder {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec
}

// decode reads a JSON body strictly: size-limited, depth-limited, unknown
// fields rejected, exactly one value.
func (s *Server) decode(w http.ResponseWriter, r *http.Request, v any) error {
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		return mnemo.Errorf(mnemo.EINVALID, "Content-Type must be application/json, got %q", ct)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return mnemo.Errorf(mnemo.ETOOLARGE, "request body is over %d bytes", s.maxBody)
		}
		return mnemo.Errorf(mnemo.EINVALID, "request body could not be read")
	}
	// Before any decoder walks it (API-21).
	if err := mnemo.CheckRequestDepth("request body", body); err != nil {
		return err
	}
	dec := strictDecoder(body)
	err = dec.Decode(v)
	if err != nil {
		// A time typed as people type it ("2026-11-20", "last Tuesday"), or
		// one that is no time: read or refused by name (TIME-2).
		fixed, changed, terr := timejson.Rewrite(body, reflect.TypeOf(v), time.Now())
		if terr != nil {
			return terr
		}
		if changed {
			dec = strictDecoder(fixed)
			err = dec.Decode(v)
		}
	}
	if err != nil {
		var tooLarge *http.MaxBytesError
		var syntax *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &tooLarge):
			return mnemo.Errorf(mnemo.ETOOLARGE, "request body is over %d bytes", s.maxBody)
		case errors.Is(err, io.EOF):
			return mnemo.Errorf(mnemo.EINVALID, "request body is empty")
		case errors.As(err, &syntax):
			return mnemo.Errorf(mnemo.EINVALID, "request body is not valid JSON at byte %d", syntax.Offset)
		case errors.As(err, &typ):
			return mnemo.Errorf(mnemo.EINVALID, "field %q must be %s", typ.Field, typ.Type)
		default:
			// Unknown fields and other decoding errors; the message names
			// the field and holds no internals.
			return mnemo.Errorf(mnemo.EINVALID, "request body: %s", strings.TrimPrefix(err.Error(), "json: "))
		}
	}
	if dec.More() {
		return mnemo.Errorf(mnemo.EINVALID, "request body holds more than one JSON value")
	}
	return nil
}
