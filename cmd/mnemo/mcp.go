package main

import (
	"log/slog"
	"net/http"

	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	mhttp "github.com/mnemo-dev/mnemo/http"
	mmcp "github.com/mnemo-dev/mnemo/mcp"
	"github.com/mnemo-dev/mnemo/service"
)

// mcpCommand serves MCP over stdio, for a client (Claude Desktop, an IDE,
// an agent runtime) that spawns mnemo and talks to it on its stdin and
// stdout. The process serves one agent: the scope comes from --tenant and
// --agent, never from the model.
func (a *app) mcpCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve MCP over stdio for a client that spawns mnemo",
		Long: `Serve the Model Context Protocol over stdin and stdout, for a client that
spawns mnemo, with the memories of --tenant and --agent. Logs go to stderr:
stdout carries only the protocol.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// A bad scope would fail every call: refuse to start instead.
			if err := mnemo.CheckScope(a.scope()); err != nil {
				return usagef("%s", mnemo.ErrorMessage(err))
			}
			a.resident = true
			svc, _, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			defer svc.Close()
			srv := mmcp.NewServer(svc, mmcp.Options{Scope: a.scope(), Logger: a.logger(), Version: version()})
			return srv.RunStdio(cmd.Context(), a.stdin, a.stdout)
		},
	}
}

// mcpHandler returns the MCP streamable HTTP handler over svc, for serve to
// mount at /mcp on srv. Each call's scope comes from its request: the
// tenant and allowed agents from its API key (tenant "default" without
// auth), the agent from the X-Mnemo-Agent header. The tools write, so a key
// needs both read and write scopes.
func mcpHandler(svc *service.Mnemo, srv *mhttp.Server, log *slog.Logger) http.Handler {
	scope := func(extra *mcpsdk.RequestExtra) (mnemo.Scope, error) {
		if extra == nil {
			return mnemo.Scope{}, mnemo.Errorf(mnemo.EUNAUTHORIZED, "no request")
		}
		a, err := srv.Authenticate(extra.Header)
		if err != nil {
			return mnemo.Scope{}, err
		}
		if !a.Has(mhttp.ScopeRead) || !a.Has(mhttp.ScopeWrite) {
			return mnemo.Scope{}, mnemo.Errorf(mnemo.EFORBIDDEN, "MCP needs a key with the read and write scopes")
		}
		agent := extra.Header.Get(mmcp.AgentHeader)
		if agent == "" && len(a.Agents) != 1 { // one agent on the key is the default
			return mnemo.Scope{}, mnemo.Errorf(mnemo.EINVALID, "no agent: set the %s header to the agent's id", mmcp.AgentHeader)
		}
		return a.Scope(agent)
	}
	return mmcp.NewServer(svc, mmcp.Options{HTTPScope: scope, Logger: log, Version: version()}).HTTPHandler()
}
