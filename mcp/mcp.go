// Package mcp serves mnemo over the Model Context Protocol, with the
// official Go SDK, on stdio (a client spawns mnemo) and on streamable HTTP.
//
// It is a thin adapter over memory.Service: the memory tools of API-2
// (remember, recall, recall_path, boot, forget, reflect, status, ingest,
// surface), link (REC-22), set_memory (FS-1), and the event tools that fit
// an agent; beside them, prompts a person picks (API-23) and the boot
// context, memories and key tree as mnemo:// resources (API-24). Three
// rules hold for every tool, and the scope and masking rules for every
// prompt and resource too:
//
//   - The scope (tenant and agent) comes from the connection — the command
//     line on stdio, the HTTP request on HTTP — never from arguments the
//     model fills in: no tool has a tenant or agent parameter, and unknown
//     arguments are rejected.
//   - A domain failure is a tool result with isError set, "code: message" as
//     text and {"error": {"code", "message"}} as structured content, so that
//     the model can read it and correct itself. JSON-RPC errors are kept for
//     protocol faults (unknown tool, malformed request).
//   - Confidential and restricted memories are masked in every result
//     (SEC-3): their text never leaves through this channel.
package mcp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/timejson"
)

// AgentHeader names the agent of an MCP call over HTTP.
const AgentHeader = "X-Mnemo-Agent"

// DefaultTenant is the tenant of every HTTP call until auth maps
// credentials to tenants.
const DefaultTenant = "default"

// Options configure a Server.
type Options struct {
	// Scope is the scope of every call on a connection served by Run or
	// RunStdio: one process serves one agent, named by whoever spawned it
	// (the CLI's --tenant and --agent).
	Scope mnemo.Scope
	// HTTPScope returns the scope of a call that arrived over HTTP, from the
	// request it came in (its header and, once auth is configured, its
	// bearer token). It runs on every call, so a scope cannot outlive the
	// credentials that granted it. Nil means HeaderScope.
	HTTPScope func(*mcpsdk.RequestExtra) (mnemo.Scope, error)
	Logger    *slog.Logger
	// Version is reported to clients at initialisation and by status.
	Version string
}

// Server serves a memory.Service over MCP. It is safe for concurrent use, and
// one Server may serve stdio and HTTP at the same time.
type Server struct {
	svc       Service
	scope     mnemo.Scope
	httpScope func(*mcpsdk.RequestExtra) (mnemo.Scope, error)
	log       *slog.Logger
	version   string
	argTypes  sync.Map // tool name -> its arguments' Go type
}

// NewServer returns a server over svc.
func NewServer(svc Service, opts Options) *Server {
	s := &Server{svc: svc, scope: opts.Scope, httpScope: opts.HTTPScope, log: opts.Logger, version: opts.Version}
	if s.httpScope == nil {
		s.httpScope = HeaderScope
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.version == "" {
		s.version = "dev"
	}
	return s
}

// HeaderScope is the scope of an HTTP call before auth: tenant
// DefaultTenant and the agent named by the X-Mnemo-Agent header, which is
// required so that no client lands in another's memories by omission.
func HeaderScope(extra *mcpsdk.RequestExtra) (mnemo.Scope, error) {
	var agent string
	if extra != nil {
		agent = extra.Header.Get(AgentHeader)
	}
	if agent == "" {
		return mnemo.Scope{}, mnemo.Errorf(mnemo.EINVALID, "no agent: set the %s header to the agent's id", AgentHeader)
	}
	sc := mnemo.Scope{TenantID: DefaultTenant, AgentID: agent}
	return sc, mnemo.CheckScope(sc)
}

// Run serves one MCP session over t, with the scope of Options.Scope, until
// the client disconnects or ctx is done.
func (s *Server) Run(ctx context.Context, t mcpsdk.Transport) error {
	scope := func(*mcpsdk.CallToolRequest) (mnemo.Scope, error) { return s.scope, nil }
	err := s.mcpServer(scope).Run(ctx, t)
	if ctx.Err() != nil {
		return nil // asked to stop: not a failure
	}
	return err
}

// RunStdio serves one MCP session over newline-delimited JSON-RPC on in and
// out, as a client that spawns mnemo expects. Nothing but the protocol may
// be written to out: log elsewhere.
func (s *Server) RunStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	return s.Run(ctx, &mcpsdk.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// HTTPHandler returns the streamable HTTP handler, to be mounted at /mcp.
// It is stateless: each request is served on its own, so no session state
// piles up and any replica can answer; the scope of each call comes from
// its request (Options.HTTPScope). Responses are plain JSON, since no tool
// streams.
func (s *Server) HTTPHandler() http.Handler {
	scope := func(req *mcpsdk.CallToolRequest) (mnemo.Scope, error) { return s.httpScope(req.Extra) }
	srv := s.mcpServer(scope)
	return mcpsdk.NewStreamableHTTPHandler(
		func(*http.Request) *mcpsdk.Server { return srv },
		&mcpsdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true},
	)
}

// scopeFunc returns the scope of a tool call.
type scopeFunc func(*mcpsdk.CallToolRequest) (mnemo.Scope, error)

const instructions = `mnemo is this agent's long-term memory. Before answering, recall what you know about the topic (recall, or surface to look without counting it as use). When you learn a durable fact, preference, decision or event, remember it — with a key such as /user/preference/editor when it may be updated later. Use set_memory to keep structured JSON under a path key; /kb/ keys and web, tool or file sources need full provenance. Memories are private to this agent.`

// mcpServer builds an SDK server with every tool, prompt and resource,
// whose requests take their scope from scope.
func (s *Server) mcpServer(scope scopeFunc) *mcpsdk.Server {
	srv := mcpsdk.NewServer(
		&mcpsdk.Implementation{Name: "mnemo", Title: "mnemo memory", Version: s.version},
		&mcpsdk.ServerOptions{Instructions: instructions},
	)
	srv.AddReceivingMiddleware(s.toolErrors)
	s.addTools(srv, scope)
	s.addPrompts(srv, scope)
	s.addResources(srv, scope)
	return srv
}

// ToolError is the structured content of a failed tool call.
type ToolError struct {
	Code    string `json:"code" jsonschema:"machine-readable error code: invalid_input, not_found, too_large, unavailable, internal, ..."`
	Message string `json:"message" jsonschema:"what went wrong, safe to show"`
}

// readTimes refuses arguments that nest too deep (API-21), and rewrites the
// time arguments of call as people type them ("2026-11-20", "last
// Tuesday") into RFC 3339, or refuses one that is no time, or out of range,
// by name (TIME-1, TIME-2).
func (s *Server) readTimes(call *mcpsdk.CallToolRequest) error {
	if call.Params == nil || len(call.Params.Arguments) == 0 {
		return nil
	}
	// Before the time fields' walk and the decoding, as every way in (API-21).
	if err := mnemo.CheckRequestDepth("the arguments", call.Params.Arguments); err != nil {
		return err
	}
	t, ok := s.argTypes.Load(call.Params.Name)
	if !ok {
		return nil
	}
	fixed, changed, err := timejson.Rewrite(call.Params.Arguments, t.(reflect.Type), time.Now())
	if err != nil {
		return err
	}
	if changed {
		call.Params.Arguments = fixed
	}
	return nil
}

// toolErrors renders every failed tool call the same way, whoever failed
// it: handlers fail with a *mnemo.Error, and the SDK fails calls whose
// arguments do not match the tool's input schema or do not decode — bad
// input too, so they get the invalid_input code.
func (s *Server) toolErrors(next mcpsdk.MethodHandler) mcpsdk.MethodHandler {
	return func(ctx context.Context, method string, req mcpsdk.Request) (mcpsdk.Result, error) {
		call, ok := req.(*mcpsdk.CallToolRequest)
		if !ok {
			return next(ctx, method, req)
		}
		start := time.Now()
		var (
			res mcpsdk.Result
			err error
		)
		if terr := s.readTimes(call); terr != nil {
			r := &mcpsdk.CallToolResult{}
			r.SetError(terr)
			res = r
		} else {
			res, err = next(ctx, method, req)
		}
		r, ok := res.(*mcpsdk.CallToolResult)
		if err != nil || !ok {
			return res, err
		}
		name := call.Params.Name
		if !r.IsError || r.GetError() == nil {
			s.log.Debug("mcp tool call", "tool", name, "took", time.Since(start))
			return r, nil
		}
		// The SDK's own messages lead with where it was; the model needs what.
		msg := strings.TrimPrefix(r.GetError().Error(), `validating "arguments": `)
		te := ToolError{Code: mnemo.EINVALID, Message: strings.TrimPrefix(msg, "validating root: ")}
		var de *mnemo.Error
		if errors.As(r.GetError(), &de) {
			te = ToolError{Code: de.Code, Message: de.Message}
		}
		s.log.Debug("mcp tool call failed", "tool", name, "code", te.Code, "msg", te.Message, "took", time.Since(start))
		r.Content = []mcpsdk.Content{&mcpsdk.TextContent{Text: te.Code + ": " + te.Message}}
		r.StructuredContent = struct {
			Error ToolError `json:"error"`
		}{te}
		return r, nil
	}
}
