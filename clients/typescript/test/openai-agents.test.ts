import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Agent, type AgentInputItem, type Model, type ModelRequest, type ModelResponse, Usage, run, setTracingDisabled } from "@openai/agents";

setTracingDisabled(true);
import { MnemoSession } from "@mnemo-dev/client/openai-agents";
import { client } from "./env.js";

/** A model that answers with how many items it was given, and records them. */
class CountingModel implements Model {
  inputs: AgentInputItem[][] = [];
  async getResponse(req: ModelRequest): Promise<ModelResponse> {
    const input = typeof req.input === "string" ? [{ role: "user", content: req.input } as AgentInputItem] : req.input;
    this.inputs.push(input);
    return {
      usage: new Usage({ requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 }),
      output: [
        {
          type: "message",
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: `I saw ${input.length} items` }],
        },
      ],
    };
  }
  // eslint-disable-next-line require-yield
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error("not streamed");
  }
}

describe("@mnemo-dev/client/openai-agents", () => {
  it("is a Session: add, get, pop, clear, with items that are not messages", async () => {
    const m = client("oa");
    const s = new MnemoSession(m, "s1");
    assert.equal(await s.getSessionId(), "s1");
    const call: AgentInputItem = { type: "function_call", callId: "c1", name: "weather", arguments: '{"city":"Oslo"}', status: "completed" };
    await s.addItems([
      { role: "user", content: "What is the weather in Oslo?" },
      call,
      { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: "Snow in Oslo" }] },
    ]);
    const items = await s.getItems();
    assert.equal(items.length, 3);
    assert.deepEqual(items[0], { type: "message", role: "user", content: "What is the weather in Oslo?" });
    assert.deepEqual(items[1], call);
    assert.deepEqual((await s.getItems(1))[0], items[2]);
    assert.equal((await m.sessions.get({ session_id: "s1" })).turn_count, 1, "user messages reach working memory");

    assert.deepEqual(await s.popItem(), items[2]);
    assert.equal((await s.getItems()).length, 2);
    await s.clearSession();
    assert.deepEqual(await s.getItems(), []);
    assert.equal(await s.popItem(), undefined);
  });

  it("gives a run its history", async () => {
    const m = client("oa");
    const model = new CountingModel();
    const agent = new Agent({ name: "helper", instructions: "Help.", model });
    const session = new MnemoSession(m, "chat");
    await run(agent, "My name is Ada", { session });
    const second = await run(agent, "What is my name?", { session });
    assert.equal(second.finalOutput, "I saw 3 items", "the second run saw the first turn and its answer");
    assert.equal((await session.getItems()).length, 4);
    assert.match((await m.recall({ query: "name Ada" })).results?.[0]?.content ?? "", /Ada/);
  });
});
