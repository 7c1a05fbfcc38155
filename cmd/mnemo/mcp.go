package main

import (
	"log/slog"
	"net/http"

	"github.com/spf13/cobra"

	"github.com/mnemo-dev/mnemo"
	mmcp "github.com/mnemo-dev/mnemo/mcp"
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
			svc, db, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			defer db.Close()
			srv := mmcp.NewServer(svc, mmcp.Options{Scope: a.scope(), Logger: a.logger(), Version: version()})
			return srv.RunStdio(cmd.Context(), a.stdin, a.stdout)
		},
	}
}

// mcpHandler returns the MCP streamable HTTP handler over svc, for serve to
// mount at /mcp. Each call's scope comes from its request: tenant "default"
// until auth maps credentials to tenants, agent from the X-Mnemo-Agent
// header.
func mcpHandler(svc *mnemo.Service, log *slog.Logger) http.Handler {
	return mmcp.NewServer(svc, mmcp.Options{Logger: log, Version: version()}).HTTPHandler()
}
