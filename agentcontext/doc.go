// Package agentcontext builds an agent's context for its next turn, what goes
// into its prompt (CTX): a run's short-term memory and its compaction, a
// session's working memory, the snapshot a run starts with, the warm boot
// and the default read. The CLI, the HTTP API and the configuration call
// all of it "context" (docs/CONTEXT.md, config section context).
package agentcontext
