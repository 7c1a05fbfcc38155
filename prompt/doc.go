// Package prompt builds what goes into an agent's prompt (CTX): a run's
// short-term memory and its compaction, a session's working memory, the
// snapshot a run starts with, the warm boot and the default read.
package prompt
