package importers_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// Fixtures in each format's documented shape, written here rather than
// downloaded: the shapes are those of the tools' exports and session files.

// gptNode is a node of a ChatGPT conversation's mapping; msg nil is a node
// whose message is null (the root, or one deleted).
func gptNode(id, parent string, children []string, msg map[string]any) map[string]any {
	n := map[string]any{"id": id, "message": msg, "children": children}
	if parent != "" {
		n["parent"] = parent
	} else {
		n["parent"] = nil
	}
	return n
}

func gptMsg(id, role string, at float64, parts ...any) map[string]any {
	return map[string]any{
		"id": id, "author": map[string]any{"role": role, "name": nil, "metadata": map[string]any{}},
		"create_time": at, "update_time": nil,
		"content": map[string]any{"content_type": "text", "parts": parts},
		"status":  "finished_successfully", "end_turn": true, "weight": 1.0,
		"metadata": map[string]any{}, "recipient": "all",
	}
}

// chatgptExport is a conversations.json with: a hidden system message, a
// regenerated answer (two branches; current_node on the second), an
// attachment among a message's parts, a tool call and its output, a
// deleted (null) node, a voice message (a transcription and its audio),
// and an empty conversation.
func chatgptExport(t testing.TB) []byte {
	sys := gptMsg("m-sys", "system", 0, "You are ChatGPT.")
	sys["metadata"] = map[string]any{"is_visually_hidden_from_conversation": true}
	sys["create_time"] = nil
	img := map[string]any{"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-1", "width": 10, "height": 10}
	user1 := gptMsg("m-u1", "user", 1700000000.25, "Plan a trip to Lisbon in May", img)
	user1["content"].(map[string]any)["content_type"] = "multimodal_text"
	old := gptMsg("m-a1", "assistant", 1700000005, "An answer that was regenerated")
	call := gptMsg("m-call", "assistant", 1700000006, "search('Lisbon weather May')")
	call["recipient"] = "browser"
	call["content"] = map[string]any{"content_type": "code", "language": "unknown", "text": "search('Lisbon weather May')"}
	out := gptMsg("m-tool", "tool", 1700000007, "Lisbon in May: 22C")
	out["author"] = map[string]any{"role": "tool", "name": "browser", "metadata": map[string]any{}}
	reply := gptMsg("m-a2", "assistant", 1700000009.5, "Lisbon in May is warm; stay in Alfama.")
	user2 := gptMsg("m-u2", "user", 1700000100, map[string]any{"content_type": "audio_transcription", "text": "Thanks!", "direction": "in"},
		map[string]any{"content_type": "audio_asset_pointer", "asset_pointer": "sediment://file_1", "size_bytes": 1000})
	user2["content"].(map[string]any)["content_type"] = "multimodal_text"
	conv := map[string]any{
		"title": "Lisbon trip", "create_time": 1699999999.0, "update_time": 1700000100.0,
		"conversation_id": "c-lisbon", "id": "c-lisbon", "current_node": "n-u2",
		"mapping": map[string]any{
			"root":   gptNode("root", "", []string{"n-sys"}, nil),
			"n-sys":  gptNode("n-sys", "root", []string{"n-u1"}, sys),
			"n-u1":   gptNode("n-u1", "n-sys", []string{"n-a1", "n-call"}, user1),
			"n-a1":   gptNode("n-a1", "n-u1", nil, old),
			"n-call": gptNode("n-call", "n-u1", []string{"n-tool"}, call),
			"n-tool": gptNode("n-tool", "n-call", []string{"n-del"}, out),
			"n-del":  gptNode("n-del", "n-tool", []string{"n-a2"}, nil),
			"n-a2":   gptNode("n-a2", "n-del", []string{"n-u2"}, reply),
			"n-u2":   gptNode("n-u2", "n-a2", nil, user2),
		},
	}
	empty := map[string]any{
		"title": "New chat", "create_time": 1700001000.0, "id": "c-empty", "current_node": "root2",
		"mapping": map[string]any{"root2": gptNode("root2", "", nil, nil)},
	}
	return mustJSON(t, []any{conv, empty})
}

// claudeExport is a Claude conversations.json: a conversation whose
// messages have content blocks (text, tool_use, tool_result) and one with
// only text, an attachment, and an empty conversation.
func claudeExport(t testing.TB) []byte {
	conv := map[string]any{
		"uuid": "cl-1", "name": "Sourdough", "created_at": "2025-02-01T09:00:00.000000Z", "updated_at": "2025-02-01T09:10:00Z",
		"account": map[string]any{"uuid": "acct"},
		"chat_messages": []any{
			map[string]any{"uuid": "cm-1", "sender": "human", "created_at": "2025-02-01T09:00:05.123456Z",
				"text": "How long should I proof sourdough?", "content": []any{map[string]any{"type": "text", "text": "How long should I proof sourdough?"}},
				"attachments": []any{map[string]any{"file_name": "recipe.txt", "extracted_content": "flour, water"}}, "files": []any{}},
			map[string]any{"uuid": "cm-2", "sender": "assistant", "created_at": "2025-02-01T09:00:20Z",
				"text": "", "content": []any{
					map[string]any{"type": "tool_use", "name": "web_search", "input": map[string]any{"q": "proof"}},
					map[string]any{"type": "tool_result", "content": []any{map[string]any{"type": "text", "text": "noise"}}},
					map[string]any{"type": "text", "text": "Proof it 4 to 6 hours at room temperature."}}},
			map[string]any{"uuid": "cm-3", "sender": "human", "created_at": "2025-02-01T09:01:00Z", "text": "Great, thanks"},
		},
	}
	empty := map[string]any{"uuid": "cl-2", "name": "", "created_at": "2025-02-02T00:00:00Z", "chat_messages": []any{}}
	return mustJSON(t, []any{conv, empty})
}

// claudeCodeSession is a Claude Code session file: a summary line, a meta
// line, a user prompt as a string, an assistant turn split into a
// thinking, a text and a tool_use line, the tool_result, a sidechain line,
// a slash command's record, and a line with invalid UTF-8.
func claudeCodeSession(t testing.TB) []byte {
	base := func(typ, uuid, ts string, msg map[string]any) map[string]any {
		return map[string]any{"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": "/home/ana/shop",
			"sessionId": "s-1111", "version": "1.0.51", "gitBranch": "main", "type": typ, "message": msg, "uuid": uuid, "timestamp": ts}
	}
	meta := base("user", "u-meta", "2025-06-01T10:00:00.000Z", map[string]any{"role": "user", "content": "Caveat: the messages below were generated by the user while running local commands."})
	meta["isMeta"] = true
	side := base("assistant", "a-side", "2025-06-01T10:00:09.000Z", map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "subagent chatter"}}})
	side["isSidechain"] = true
	lines := []any{
		map[string]any{"type": "summary", "summary": "Fix the checkout bug", "leafUuid": "a-2"},
		meta,
		base("user", "u-1", "2025-06-01T10:00:01.000Z", map[string]any{"role": "user", "content": "The checkout total ignores the discount; fix it"}),
		base("assistant", "a-0", "2025-06-01T10:00:02.000Z", map[string]any{"id": "msg_1", "role": "assistant", "content": []any{map[string]any{"type": "thinking", "thinking": "hmm", "signature": "x"}}}),
		base("assistant", "a-1", "2025-06-01T10:00:03.000Z", map[string]any{"id": "msg_1", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "I'll look at cart.go."}}}),
		base("assistant", "a-tool", "2025-06-01T10:00:04.000Z", map[string]any{"id": "msg_1", "role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": map[string]any{"file_path": "cart.go"}}}}),
		base("user", "u-tool", "2025-06-01T10:00:05.000Z", map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "toolu_1", "content": strings.Repeat("package cart\n", 200000)}}}),
		side,
		base("user", "u-cmd", "2025-06-01T10:00:06.000Z", map[string]any{"role": "user", "content": "<command-name>/clear</command-name>"}),
		base("assistant", "a-2", "2025-06-01T10:00:10.000Z", map[string]any{"id": "msg_2", "role": "assistant", "content": []any{map[string]any{"type": "text", "text": "Fixed: the discount is applied before tax."}}}),
	}
	var b strings.Builder
	for _, l := range lines {
		b.Write(mustJSON(t, l))
		b.WriteByte('\n')
	}
	// Invalid UTF-8 in a prompt, as a terminal paste can leave it.
	b.WriteString(`{"type":"user","sessionId":"s-1111","uuid":"u-2","timestamp":"2025-06-01T10:00:11.000Z","message":{"role":"user","content":"caf` + "\xe9" + ` receipts too"}}` + "\n\n")
	return []byte(b.String())
}

// codexRollout is a Codex session file: session_meta, the context Codex
// adds to the first turn, a prompt, reasoning, a function call and its
// output, event_msg copies of the turns, the answer.
func codexRollout(t testing.TB) []byte {
	item := func(ts string, payload map[string]any) map[string]any {
		return map[string]any{"timestamp": ts, "type": "response_item", "payload": payload}
	}
	msg := func(role, typ, text string) map[string]any {
		return map[string]any{"type": "message", "role": role, "content": []any{map[string]any{"type": typ, "text": text}}}
	}
	lines := []any{
		map[string]any{"timestamp": "2025-09-03T08:00:00.000Z", "type": "session_meta", "payload": map[string]any{
			"id": "0199-aaaa", "timestamp": "2025-09-03T08:00:00.000Z", "cwd": "/home/ana/api", "originator": "codex_cli_rs", "cli_version": "0.30.0", "instructions": nil}},
		item("2025-09-03T08:00:01.000Z", msg("user", "input_text", "<environment_context>\n  <cwd>/home/ana/api</cwd>\n</environment_context>")),
		item("2025-09-03T08:00:02.000Z", msg("user", "input_text", "Add rate limiting to the login endpoint")),
		map[string]any{"timestamp": "2025-09-03T08:00:02.000Z", "type": "event_msg", "payload": map[string]any{"type": "user_message", "message": "Add rate limiting to the login endpoint", "kind": "plain"}},
		item("2025-09-03T08:00:03.000Z", map[string]any{"type": "reasoning", "summary": []any{map[string]any{"type": "summary_text", "text": "thinking"}}}),
		item("2025-09-03T08:00:04.000Z", map[string]any{"type": "function_call", "name": "shell", "arguments": `{"command":["ls"]}`, "call_id": "call_1"}),
		item("2025-09-03T08:00:05.000Z", map[string]any{"type": "function_call_output", "call_id": "call_1", "output": `{"output":"main.go"}`}),
		item("2025-09-03T08:00:09.000Z", msg("assistant", "output_text", "Added a token bucket of 5 attempts a minute per IP.")),
		map[string]any{"timestamp": "2025-09-03T08:00:09.000Z", "type": "event_msg", "payload": map[string]any{"type": "agent_message", "message": "Added a token bucket"}},
		map[string]any{"timestamp": "2025-09-03T08:00:10.000Z", "type": "turn_context", "payload": map[string]any{"cwd": "/home/ana/api"}},
	}
	return jsonLines(t, lines...)
}

// codexLegacy is an older Codex file: the session on the first line, the
// items themselves after it.
func codexLegacy(t testing.TB) []byte {
	return jsonLines(t,
		map[string]any{"id": "legacy-1", "timestamp": "2025-04-20T12:00:00.000Z", "instructions": nil},
		map[string]any{"record_type": "state"},
		map[string]any{"type": "message", "role": "user", "content": []any{map[string]any{"type": "input_text", "text": "Rename the package"}}},
		map[string]any{"type": "message", "role": "assistant", "content": []any{map[string]any{"type": "output_text", "text": "Renamed to billing."}}},
	)
}

// mcpMemory is a memory.json of the MCP reference memory server.
func mcpMemory(t testing.TB) []byte {
	return jsonLines(t,
		map[string]any{"type": "entity", "name": "Ana Silva", "entityType": "person", "observations": []any{"Works at Acme as a data engineer", "Prefers morning meetings"}},
		map[string]any{"type": "entity", "name": "Acme", "entityType": "organization", "observations": []any{"Makes industrial sensors"}},
		map[string]any{"type": "entity", "name": "Empty Co", "entityType": "organization", "observations": []any{}},
		map[string]any{"type": "relation", "from": "Ana Silva", "to": "Acme", "relationType": "works_at"},
		map[string]any{"type": "relation", "from": "Ana Silva", "to": "Nobody", "relationType": "knows"},
	)
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func jsonLines(t testing.TB, vs ...any) []byte {
	t.Helper()
	var b []byte
	for _, v := range vs {
		b = append(b, mustJSON(t, v)...)
		b = append(b, '\n')
	}
	return b
}
