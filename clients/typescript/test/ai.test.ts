import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { mnemoTools, withMemory } from "@mnemo-dev/client/ai";
import { client } from "./env.js";

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model that calls one tool, then answers with the tool's output. */
function scriptedModel(toolName: string, input: unknown) {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async (opts) => {
      if (step++ === 0) {
        return {
          content: [{ type: "tool-call", toolCallId: `call-${step}`, toolName, input: JSON.stringify(input) }],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      const last = opts.prompt.at(-1);
      const out = last?.role === "tool" ? JSON.stringify(last.content[0]) : "";
      return { content: [{ type: "text", text: out }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] };
    },
  });
}

describe("@mnemo-dev/client/ai", () => {
  it("lets a model remember, then recall", async () => {
    const m = client("ai");
    const tools = mnemoTools(m);
    await generateText({
      model: scriptedModel("remember", { content: "The user's favourite colour is teal", key: "/user/colour" }),
      tools,
      stopWhen: stepCountIs(3),
      prompt: "Remember that my favourite colour is teal",
    });
    assert.match((await m.get({ key: "/user/colour" })).content, /teal/);

    const r = await generateText({
      model: scriptedModel("recall", { query: "favourite colour" }),
      tools,
      stopWhen: stepCountIs(3),
      prompt: "What is my favourite colour?",
    });
    assert.match(r.text, /teal/, "the model saw the recalled memory");
  });

  it("puts boot or snapshot text in the system prompt", async () => {
    const m = client("ai");
    await m.remember({ content: "The user is called Priya and lives in Leeds", key: "/user/name", type: "identity" });
    const booted = await withMemory(m, "You help.");
    assert.match(booted, /^You help\.\n\n# Memory\n.*Priya/s);
    const snap = await withMemory(m, "You help.", { trigger: { type: "user_message", payload: "where do I live?" }, tokenLimit: 300 });
    assert.match(snap, /Leeds/);

    const model = new MockLanguageModelV3({
      doGenerate: { content: [{ type: "text", text: "ok" }], finishReason: { unified: "stop", raw: undefined }, usage, warnings: [] },
    });
    await generateText({ model, system: booted, prompt: "hi" });
    const sys = model.doGenerateCalls[0]?.prompt[0];
    assert.equal(sys?.role, "system");
    assert.match(String(sys?.content), /Priya/);
  });
});
