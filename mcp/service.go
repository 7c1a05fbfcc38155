package mcp

import (
	"context"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
)

// Service is what the MCP tools call: the methods of service.Mnemo they
// use, so that this package depends on no store. Pass a *service.Mnemo,
// whose methods conceal every answer by the clearance on the call's
// context (SEC-8, the gate); a value that is not gated would serve masked
// callers whole.
type Service interface {
	AddTurn(context.Context, mnemo.Scope, string, agentcontext.Turn) (agentcontext.WorkingMemory, error)
	AppendEvents(context.Context, mnemo.Scope, []mnemo.Event) ([]mnemo.Event, error)
	Boot(context.Context, mnemo.Scope, agentcontext.BootQuery) (agentcontext.Boot, error)
	Capabilities(context.Context, mnemo.Scope, events.CapabilityQuery) ([]events.CapabilityMatch, error)
	Close() error
	Forget(context.Context, mnemo.Scope, []string, []string) (int, error)
	Get(context.Context, mnemo.Scope, string) (mnemo.Memory, error)
	GetByKey(context.Context, mnemo.Scope, string) (mnemo.Memory, error)
	Ingest(context.Context, mnemo.Scope, lifecycle.IngestRequest) (lifecycle.IngestResult, error)
	Init(context.Context) error
	KeyTree(context.Context, mnemo.Scope, string, int) ([]mnemo.KeyChild, bool, error)
	Limits() mnemo.Limits
	Link(context.Context, mnemo.Scope, mnemo.Relation) (mnemo.Relation, error)
	List(context.Context, mnemo.Scope, mnemo.ListQuery) ([]mnemo.Memory, int, error)
	Neighbours(context.Context, mnemo.Scope, string, events.GraphQuery) ([]mnemo.Relation, error)
	Recall(context.Context, mnemo.Scope, memory.Query) (memory.Result, error)
	RecallPathLinked(context.Context, mnemo.Scope, string, int, int) (memory.PathResult, error)
	Reflect(context.Context, mnemo.Scope, lifecycle.ReflectOptions) (lifecycle.ReflectReport, error)
	Remember(context.Context, mnemo.Scope, mnemo.Draft) (mnemo.Memory, error)
	RememberBatch(context.Context, mnemo.Scope, []mnemo.Draft) ([]mnemo.Memory, error)
	SearchEvents(context.Context, mnemo.Scope, events.Search) ([]events.Hit, error)
	SoftForget(context.Context, mnemo.Scope, []string, []string, string) (lifecycle.ArchiveResult, error)
	Stats(context.Context, mnemo.Scope) (mnemo.Stats, error)
	Summarize(context.Context, mnemo.Scope, mnemo.Period, time.Time) (mnemo.Summary, error)
	Surface(context.Context, mnemo.Scope, memory.Query) (memory.Result, error)
	Update(context.Context, mnemo.Scope, string, memory.Patch, string) (memory.UpdateResult, error)
	Write(context.Context, mnemo.Scope, []mnemo.Draft) ([]memory.WriteResult, error)
}
