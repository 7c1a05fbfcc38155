// readme.mjs runs a document's client snippets (docs/CLIENTS.md) as a user would paste them:
// each fence after a `<!-- readme-run: LANG [PRELUDE] -->` line, LANG ts or
// python, is written to a file (ts ones as .mjs in this package, so that
// the client, by its package name, and the adapters' packages resolve) and run; every `// → text` or
// `# → text` line of it must be a line of what it printed. A PRELUDE puts a
// fake model, named `model`, before the snippet: no model is called.
//
// Usage: node scripts/readme.mjs docs/CLIENTS.md ts|python [INTERPRETER] [--in DIR]
// (MNEMO_URL and MNEMO_KEY name the server; scripts/clients-test.sh sets them.)
// --in DIR runs the snippets in DIR, a directory of a newcomer's own (for ts:
// one where only the packed package is installed), and only those that
// import nothing but the client (the others need the adapters' frameworks).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { signal } from "../../../scripts/testwait.mjs";

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

const args = process.argv.slice(2);
const inAt = args.indexOf("--in");
const home = inAt >= 0 ? args.splice(inAt, 2)[1] : undefined;
const [readme, lang, interpreter] = args;
if (!readme || !["ts", "python"].includes(lang) || (inAt >= 0 && !home)) {
  console.error("usage: node scripts/readme.mjs docs/CLIENTS.md ts|python [INTERPRETER] [--in DIR]");
  process.exit(2);
}
const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
// The client's import name: its npm package's in ts, the module `mnemo` in Python.
const self = lang === "ts" ? JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")).name : "mnemo";
const dir = mkdtempSync(join(home ?? (lang === "ts" ? join(pkg, "dist") : process.env.TMPDIR ?? "/tmp"), "readme-"));
/** plain reports whether a snippet imports nothing but the client (and, in Python, the standard library). */
function plain(snippet) {
  const mods = [];
  for (const m of snippet.matchAll(/^\s*import\s.*?\bfrom\s+"([^"]+)"/gm)) mods.push(m[1]);
  for (const m of snippet.matchAll(/^\s*import\s+([\w.]+(?:\s*,\s*[\w.]+)*)\s*$/gm)) mods.push(...m[1].split(/\s*,\s*/));
  for (const m of snippet.matchAll(/^\s*from\s+([\w.]+)\s+import\b/gm)) mods.push(m[1]);
  return mods.every((x) => x === self || (lang === "python" && ["asyncio", "json", "os", "sys"].includes(x)));
}
/** packageOf is the npm package a bare import specifier names ("@a/b/c" → "@a/b", "x/y" → "x"), or "" for a relative or node: one. */
function packageOf(spec) {
  if (/^(\.|\/|node:)/.test(spec)) return "";
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}
/** importsOf lists the packages a module's import statements name. */
function importsOf(text) {
  return [...text.matchAll(/^\s*import\s(?:[^"']*?\sfrom\s)?["']([^"']+)["']/gm)].map((m) => packageOf(m[1])).filter(Boolean);
}
/** needs lists the packages a TypeScript snippet needs installed beside the client: those it
 * imports, and those the adapters it imports (CLIENT/X, src/X.ts) import. */
function needs(snippet) {
  const out = new Set();
  for (const m of snippet.matchAll(/^\s*import\s(?:[^"']*?\sfrom\s)?["']([^"']+)["']/gm)) {
    const sub = m[1].startsWith(self + "/") ? /^([\w-]+)$/.exec(m[1].slice(self.length + 1)) : null;
    if (sub) for (const p of importsOf(readFileSync(join(pkg, "src", `${sub[1]}.ts`), "utf8"))) out.add(p);
    else if (packageOf(m[1]) !== self) out.add(packageOf(m[1]));
  }
  out.delete("");
  out.delete(self);
  return [...out].sort();
}

let skipped = 0;
const lines = readFileSync(readme, "utf8").split("\n");
// A snippet's packages must be installed by an `npm install` the document
// gives between the previous snippet and it: a reader pastes them in turn.
const installGaps = [];
let lastSnippet = 0;
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
    if (lang === "ts") {
      const said = new Set(lines.slice(lastSnippet, i).join(" ").match(/npm install [^`]+/g)?.flatMap((l) => l.split(/\s+/).slice(2)) ?? []);
      const missing = needs(snippet).filter((p) => !said.has(p));
      if (missing.length) installGaps.push(`FAIL ${where}: the snippet needs ${missing.join(", ")}, and no \`npm install\` before it says so`);
    }
    lastSnippet = end;
    const prelude = m[2] ? preludes[m[2]] : "";
    if (prelude === undefined) throw new Error(`${where}: no prelude ${m[2]}`);
    if (home && (m[2] || !plain(snippet))) {
      skipped++;
      continue;
    }
    const file = join(dir, `snippet-${i + 1}.${lang === "ts" ? "mjs" : "py"}`);
    writeFileSync(file, prelude + snippet);
    const want = snippet.split("\n").flatMap((l) => {
      const a = /^\s*(?:\/\/|#) → (.*)$/.exec(l);
      return a ? [a[1]] : [];
    });
    const out = promisify(execFile)(interpreter ?? "node", [file], { encoding: "utf8", signal: signal(60_000) }).then(
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
let failed = installGaps.length;
for (const g of installGaps) console.log(g);
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
console.log(`readme ${lang}${home ? ` in ${home}` : ""}: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} left to the in-package run (they import more than ${self})` : ""}`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
