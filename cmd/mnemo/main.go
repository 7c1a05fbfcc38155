// Command mnemo is long-term and short-term memory for AI agents: a server
// (HTTP), and a CLI over the same embedded store.
//
// The configuration (mnemo.yml) is Config in config.go, made of one type
// per top-level section, each beside what it configures with its defaults
// and its validate: config_store.go (store, sqlite), config_limits.go
// (limits, recall), config_http.go (http, auth), config_embedding.go,
// config_context.go, config_lifecycle.go, config_events.go and
// config_llm.go. config_env.go lays the environment and the flags over
// the file; configkeys.go names the key nearest to an unknown one.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
