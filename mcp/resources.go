package mcp

import (
	"context"
	"encoding/json"
	"net/url"
	"strings"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/internal/panics"
	"github.com/mnemo-dev/mnemo/security"
)

// Resources a client can read or attach (API-24), as mnemo:// URIs: the
// boot context, a memory by id or by key, and the key tree. Each is read
// in the scope of the connection, masked as every answer of this channel
// is (SEC-3, SEC-8).
const (
	bootURI    = "mnemo://boot"
	memoryURI  = "mnemo://memory/"
	keyURI     = "mnemo://key/"
	keysURI    = "mnemo://keys"
	keyTreeMax = 500 // children listed of one level
)

func (s *Server) addResources(srv *mcpsdk.Server, scope scopeFunc) {
	srv.AddResource(&mcpsdk.Resource{
		URI: bootURI, Name: "boot", Title: "Boot context", MIMEType: "text/markdown",
		Description: "What the agent knows of itself at the start of a conversation: identity, feelings, key knowledge, the last week's events.",
	}, s.resource(scope, s.readBoot))
	srv.AddResource(&mcpsdk.Resource{
		URI: keysURI, Name: "keys", Title: "Key tree", MIMEType: "application/json",
		Description: "The top level of the agent's key tree: each child's name, whether it has keys under it, and how many memories it holds.",
	}, s.resource(scope, s.readKeys))
	srv.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		URITemplate: keysURI + "{+prefix}", Name: "keys-under", Title: "Key tree under a prefix", MIMEType: "application/json",
		Description: "One level of the key tree under a prefix, such as mnemo://keys/user/preference.",
	}, s.resource(scope, s.readKeys))
	srv.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		URITemplate: memoryURI + "{id}", Name: "memory", Title: "Memory by id", MIMEType: "application/json",
		Description: "One memory by its id.",
	}, s.resource(scope, s.readMemory))
	srv.AddResourceTemplate(&mcpsdk.ResourceTemplate{
		URITemplate: keyURI + "{+key}", Name: "memory-by-key", Title: "Memory by key", MIMEType: "application/json",
		Description: "The live memory of a key: mnemo://key/user/preference/editor is the key /user/preference/editor.",
	}, s.resource(scope, s.readMemory))
}

// resource serves a resource read in the scope of its request, masked. A
// memory or key that is not there is the protocol's resource-not-found.
func (s *Server) resource(scope scopeFunc, read func(ctx context.Context, sc mnemo.Scope, uri string) (string, string, error)) mcpsdk.ResourceHandler {
	return func(ctx context.Context, req *mcpsdk.ReadResourceRequest) (*mcpsdk.ReadResourceResult, error) {
		uri := req.Params.URI
		sc, err := scope(&mcpsdk.CallToolRequest{Session: req.Session, Extra: req.Extra})
		if err != nil {
			return nil, s.toolError("resource", err)
		}
		ctx = security.WithClearance(ctx, security.ClearanceFrom(ctx).Stricter(security.Masked))
		var mime, text string
		err = panics.Call(s.log, "mcp resource "+uri, func() (err error) {
			mime, text, err = read(ctx, sc, uri)
			return err
		})
		if mnemo.ErrorCode(err) == mnemo.ENOTFOUND {
			return nil, mcpsdk.ResourceNotFoundError(uri)
		}
		if err != nil {
			return nil, s.toolError("resource", err)
		}
		return &mcpsdk.ReadResourceResult{Contents: []*mcpsdk.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
	}
}

func (s *Server) readBoot(ctx context.Context, sc mnemo.Scope, _ string) (string, string, error) {
	_, text, err := s.boot(ctx, sc, bootIn{})
	return "text/markdown", text, err
}

// keyTree is the mnemo://keys resource.
type keyTree struct {
	Prefix   string           `json:"prefix"`
	Children []mnemo.KeyChild `json:"children"`
	More     bool             `json:"more"`
}

func (s *Server) readKeys(ctx context.Context, sc mnemo.Scope, uri string) (string, string, error) {
	// The key tree's prefixes: "" for the top, else ending in "/".
	prefix := ""
	if p := strings.TrimPrefix(uri, keysURI); strings.Trim(p, "/") != "" {
		var err error
		if prefix, err = uriPath(p); err != nil {
			return "", "", err
		}
		if !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
	}
	children, more, err := s.svc.KeyTree(ctx, sc, prefix, keyTreeMax)
	if err != nil {
		return "", "", err
	}
	if children == nil {
		children = []mnemo.KeyChild{}
	}
	b, err := json.Marshal(keyTree{Prefix: prefix, Children: children, More: more})
	return "application/json", string(b), err
}

func (s *Server) readMemory(ctx context.Context, sc mnemo.Scope, uri string) (string, string, error) {
	var (
		m   mnemo.Memory
		err error
	)
	if id, ok := strings.CutPrefix(uri, memoryURI); ok {
		if id, err = url.PathUnescape(id); err != nil || id == "" || strings.Contains(id, "/") {
			return "", "", mnemo.Errorf(mnemo.ENOTFOUND, "no memory %s", uri)
		}
		m, err = s.svc.Get(ctx, sc, id)
	} else {
		key, perr := uriPath(strings.TrimPrefix(uri, keyURI))
		if perr != nil || key == "/" {
			return "", "", mnemo.Errorf(mnemo.ENOTFOUND, "no memory %s", uri)
		}
		m, err = s.svc.GetByKey(ctx, sc, key)
	}
	if err != nil {
		return "", "", err
	}
	b, err := json.Marshal(view(&m))
	return "application/json", string(b), err
}

// uriPath reads the key or prefix of a mnemo://key/… or mnemo://keys/…
// URI: a path (user/pref → /user/pref), or a key that is itself a URI
// (knowledge://go/errors); percent-escapes are decoded.
func uriPath(p string) (string, error) {
	p, err := url.PathUnescape(p)
	if err != nil {
		return "", mnemo.Errorf(mnemo.EINVALID, "a malformed escape in the URI")
	}
	p = strings.TrimPrefix(p, "/")
	if strings.Contains(p, "://") {
		return p, nil
	}
	return "/" + p, nil
}
