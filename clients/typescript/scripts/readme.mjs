// readme.mjs runs the README's client snippets as a user would paste them:
// each fence after a `<!-- readme-run: LANG [PRELUDE] -->` line, LANG ts or
// python, is written to a file (ts ones as .mjs in this package, so that
// "mnemo" and the adapters' packages resolve) and run; every `// → text` or
// `# → text` line of it must be a line of what it printed. A PRELUDE puts a
// fake model, named `model`, before the snippet: no model is called.
//
// Usage: node scripts/readme.mjs README.md ts|python [INTERPRETER]
// (MNEMO_URL and MNEMO_KEY name the server; scripts/clients-test.sh sets them.)
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const preludes = {
  // Calls recall for "favourite colour", then answers with what it returned.
  ai: `import { MockLanguageModelV3 } from "ai/test";
const usage_ = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
let step_ = 0;
const model = new MockLanguageModelV3({
  doGenerate: async (opts) => {
    if (step_++ === 0) {
      return { content: [{ type: "tool-call", toolCallId: "c1", toolName: "recall", input: JSON.stringify({ query: "favourite colour" }) }], finishReason: { unified: "tool-calls", raw: undefined }, usage: usage_, warnings: [] };
    }
    const last = opts.prompt.at(-1);
    const said = JSON.stringify(last?.content?.[0] ?? "");
    return { content: [{ type: "text", text: /teal/.test(said) ? "teal" : "unknown" }], finishReason: { unified: "stop", raw: undefined }, usage: usage_, warnings: [] };
  },
});
`,
  // Answers with how many messages the prompt gave it.
  langchain: `import { AIMessage } from "@langchain/core/messages";
import { RunnableLambda } from "@langchain/core/runnables";
const model = RunnableLambda.from((p) => new AIMessage(\`I saw \${p.toChatMessages().length} messages\`));
`,
  // Answers with how many input items it was given.
  "openai-agents": `import { Usage, setTracingDisabled } from "@openai/agents";
setTracingDisabled(true);
const model = {
  async getResponse(req) {
    const n = typeof req.input === "string" ? 1 : req.input.length;
    return { usage: new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 }), output: [{ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: \`I saw \${n} items\` }] }] };
  },
  async *getStreamedResponse() { throw new Error("not streamed"); },
};
`,
};

const [readme, lang, interpreter] = process.argv.slice(2);
if (!readme || !["ts", "python"].includes(lang)) {
  console.error("usage: node scripts/readme.mjs README.md ts|python [INTERPRETER]");
  process.exit(2);
}
const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const dir = mkdtempSync(join(lang === "ts" ? join(pkg, "dist") : process.env.TMPDIR ?? "/tmp", "readme-"));
const lines = readFileSync(readme, "utf8").split("\n");
const mark = /^<!-- readme-run: (\S+)(?: (\S+))? -->$/;
// The snippets run at once (each has its own agent), and report in order.
const runs = [];
try {
  for (let i = 0; i < lines.length; i++) {
    const m = mark.exec(lines[i]);
    if (!m || m[1] !== lang) continue;
    const where = `${readme}:${i + 1}`;
    if (!/^```\w+$/.test(lines[i + 1] ?? "")) throw new Error(`${where}: the marker is not followed by a fence`);
    const end = lines.findIndex((l, j) => j > i + 1 && l === "```");
    if (end < 0) throw new Error(`${where}: the fence is not closed`);
    const snippet = lines.slice(i + 2, end).join("\n") + "\n";
    const prelude = m[2] ? preludes[m[2]] : "";
    if (prelude === undefined) throw new Error(`${where}: no prelude ${m[2]}`);
    const file = join(dir, `snippet-${i + 1}.${lang === "ts" ? "mjs" : "py"}`);
    writeFileSync(file, prelude + snippet);
    const want = snippet.split("\n").flatMap((l) => {
      const a = /^\s*(?:\/\/|#) → (.*)$/.exec(l);
      return a ? [a[1]] : [];
    });
    const out = promisify(execFile)(interpreter ?? "node", [file], { encoding: "utf8", timeout: 60_000 }).then(
      (r) => r.stdout,
      (e) => `(exit ${e.code}) ${e.stdout ?? ""}${e.stderr ?? ""}`,
    );
    runs.push({ where, want, out });
  }
  for (const r of runs) r.out = await r.out;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
let passed = 0;
let failed = 0;
for (const { where, want, out } of runs) {
  const got = out.split("\n").map((l) => l.trim());
  const missing = want.filter((w) => !got.includes(w));
  if (want.length === 0 || missing.length > 0) {
    failed++;
    console.log(`FAIL ${where}: wanted ${JSON.stringify(missing.length ? missing : "a // → line")}, printed:\n${out}`);
  } else {
    passed++;
    console.log(`ok   ${where}`);
  }
}
console.log(`readme ${lang}: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
