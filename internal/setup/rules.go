package setup

// The instructions that tell an agent with no hooks when to use mnemo's
// tools (AGT-7): Codex reads AGENTS.md, Cursor its rules files.
const instructions = `You have a long-term memory through the mnemo MCP server's tools.

- At the start of a task, call ` + "`recall`" + ` with what the task is about, and use what it
  returns: decisions made before, the user's preferences, how this project is built and tested.
- When the user states a preference, a decision is made, or you learn a fact about this
  project that will matter in a later session, call ` + "`remember`" + ` with one short,
  self-contained sentence.
- Before a long task ends, ` + "`remember`" + ` what was done and what is left.
- Do not remember secrets (keys, passwords, tokens) or what is already in the code.
`

// codexInstructions is the block mnemo setup codex keeps in
// ~/.codex/AGENTS.md.
const codexInstructions = "## Memory (mnemo)\n\n" + instructions

// cursorRules is .cursor/rules/mnemo.mdc: a rule applied to every chat.
const cursorRules = `---
description: When to recall and remember with mnemo, the memory MCP server
alwaysApply: true
---

` + instructions
