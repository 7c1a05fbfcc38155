package http

import (
	"context"
	"io"
	"time"

	"github.com/mnemo-dev/mnemo"
	"github.com/mnemo-dev/mnemo/agentcontext"
	"github.com/mnemo-dev/mnemo/events"
	"github.com/mnemo-dev/mnemo/lifecycle"
	"github.com/mnemo-dev/mnemo/memory"
)

// Service is what the HTTP API calls: the methods of service.Mnemo it
// uses, so that this package depends on no store. Pass a *service.Mnemo,
// whose methods conceal every answer by the clearance on the call's
// context (SEC-8, the gate); a value that is not gated would serve masked
// callers whole.
type Service interface {
	AddMessages(context.Context, mnemo.Scope, string, []memory.Message) ([]mnemo.Memory, error)
	AddTurn(context.Context, mnemo.Scope, string, agentcontext.Turn) (agentcontext.WorkingMemory, error)
	AgentHint(context.Context, mnemo.Scope, []string) string
	Agents(context.Context, string, []string) ([]mnemo.AgentCount, string, error)
	AppendEvent(context.Context, mnemo.Scope, mnemo.Event) (mnemo.Event, error)
	AppendEvents(context.Context, mnemo.Scope, []mnemo.Event) ([]mnemo.Event, error)
	Boot(context.Context, mnemo.Scope, agentcontext.BootQuery) (agentcontext.Boot, error)
	Capabilities(context.Context, mnemo.Scope, events.CapabilityQuery) ([]events.CapabilityMatch, error)
	Clear(context.Context, mnemo.Scope) (int, error)
	Close() error
	CloseRun(context.Context, mnemo.Scope, string) (agentcontext.Run, error)
	CountByType(context.Context, mnemo.Scope) (map[string]int, error)
	DefaultRead(context.Context, mnemo.Scope, agentcontext.ReadQuery) (agentcontext.ReadResult, error)
	DegradedReasons(mnemo.Scope) []string
	EndSession(context.Context, mnemo.Scope, string, bool) (agentcontext.SessionEnd, error)
	Export(context.Context, mnemo.Scope, io.Writer, func(int, int)) (int, error)
	ExportEvents(context.Context, mnemo.Scope, mnemo.EventQuery, string, io.Writer) (events.ExportResult, error)
	ExtractCapabilities(context.Context, mnemo.Scope) ([]mnemo.Capability, error)
	Forget(context.Context, mnemo.Scope, []string, []string) (int, error)
	Get(context.Context, mnemo.Scope, string) (mnemo.Memory, error)
	GetByKey(context.Context, mnemo.Scope, string) (mnemo.Memory, error)
	GetEvent(context.Context, mnemo.Scope, string) (mnemo.Event, error)
	GetRun(context.Context, mnemo.Scope, string) (agentcontext.Run, error)
	GetWorkingMemory(context.Context, mnemo.Scope, string) (agentcontext.WorkingMemory, error)
	History(context.Context, mnemo.Scope, string) ([]mnemo.Revision, error)
	Import(context.Context, io.Reader, memory.ImportOptions) (memory.ImportResult, error)
	Ingest(context.Context, mnemo.Scope, lifecycle.IngestRequest) (lifecycle.IngestResult, error)
	Init(context.Context) error
	Inject(context.Context, mnemo.Scope, string, string) (agentcontext.Run, error)
	KeyTree(context.Context, mnemo.Scope, string, int) ([]mnemo.KeyChild, bool, error)
	Ledger(context.Context, mnemo.Scope, mnemo.LedgerQuery) ([]mnemo.LedgerEntry, int, error)
	Link(context.Context, mnemo.Scope, mnemo.Relation) (mnemo.Relation, error)
	List(context.Context, mnemo.Scope, mnemo.ListQuery) ([]mnemo.Memory, int, error)
	ListRuns(context.Context, mnemo.Scope) ([]agentcontext.Run, error)
	ListSessions(context.Context, mnemo.Scope) ([]agentcontext.WorkingMemory, error)
	Neighbours(context.Context, mnemo.Scope, string, events.GraphQuery) ([]mnemo.Relation, error)
	OpenRun(context.Context, mnemo.Scope, agentcontext.RunOptions) (agentcontext.Run, error)
	Profile(context.Context, mnemo.Scope) (events.ProfileRecord, error)
	Prune(context.Context, mnemo.Scope, lifecycle.PruneQuery) (lifecycle.ArchiveResult, error)
	PutProfile(context.Context, mnemo.Scope, int64, events.Profile) (events.ProfileRecord, error)
	QueryEvents(context.Context, mnemo.Scope, mnemo.EventQuery) (mnemo.EventPage, error)
	Recall(context.Context, mnemo.Scope, memory.Query) (memory.Result, error)
	RecallPathLinked(context.Context, mnemo.Scope, string, int, int) (memory.PathResult, error)
	RecordCall(context.Context, mnemo.Scope, string, agentcontext.ToolCall) (agentcontext.Run, error)
	RecordInteraction(context.Context, mnemo.Scope, string) (events.ProfileRecord, bool, error)
	RecordResponse(context.Context, mnemo.Scope, string, string) (agentcontext.Run, error)
	Reflect(context.Context, mnemo.Scope, lifecycle.ReflectOptions) (lifecycle.ReflectReport, error)
	RelateEventText(context.Context, mnemo.Scope, string) ([]mnemo.Relation, error)
	RememberBatch(context.Context, mnemo.Scope, []mnemo.Draft) ([]mnemo.Memory, error)
	RememberUnguarded(context.Context, mnemo.Scope, []mnemo.Draft) ([]mnemo.Memory, error)
	Replay(context.Context, mnemo.Scope, events.ReplayOptions, events.Sink) (events.ReplayResult, error)
	Reset(context.Context, mnemo.Scope, string) (lifecycle.ArchiveResult, error)
	Restore(context.Context, mnemo.Scope, int64, string) ([]string, error)
	SearchEvents(context.Context, mnemo.Scope, events.Search) ([]events.Hit, error)
	ShortestPath(context.Context, mnemo.Scope, string, string, events.GraphQuery) ([]mnemo.Relation, error)
	Snapshot(context.Context, mnemo.Scope, agentcontext.SnapshotQuery) (agentcontext.Snapshot, error)
	Stats(context.Context, mnemo.Scope) (mnemo.Stats, error)
	Summaries(context.Context, mnemo.Scope, mnemo.SummaryQuery) ([]mnemo.Summary, error)
	Summarize(context.Context, mnemo.Scope, mnemo.Period, time.Time) (mnemo.Summary, error)
	Surface(context.Context, mnemo.Scope, memory.Query) (memory.Result, error)
	Traverse(context.Context, mnemo.Scope, string, events.GraphQuery) (events.Graph, error)
	Update(context.Context, mnemo.Scope, string, memory.Patch, string) (memory.UpdateResult, error)
	WaitEmbedded(context.Context) error
	Write(context.Context, mnemo.Scope, []mnemo.Draft) ([]memory.WriteResult, error)
	WriteWith(context.Context, mnemo.Scope, []mnemo.Draft, memory.WriteOptions) ([]memory.WriteResult, error)
}
