import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { Annotation, type LangGraphRunnableConfig, MessagesAnnotation, StateGraph } from "@langchain/langgraph";
import { MnemoStore } from "@mnemo-dev/client/langgraph";
import { client } from "./env.js";

describe("@mnemo-dev/client/langgraph", () => {
  it("is a BaseStore: put, get, search, list namespaces, delete", async () => {
    const m = client("lg");
    const store = new MnemoStore(m, { fields: ["text"] });
    await store.put(["users", "42", "prefs"], "theme", { text: "Prefers dark mode in the editor", level: 1 });
    await store.put(["users", "42", "prefs"], "food", { text: "Is vegetarian and loves spicy curry", level: 2 });
    await store.put(["users", "7"], "a.b", { text: "Works nights at the hospital" });

    const got = await store.get(["users", "42", "prefs"], "theme");
    assert.deepEqual(got?.value, { text: "Prefers dark mode in the editor", level: 1 });
    assert.deepEqual(got?.namespace, ["users", "42", "prefs"]);
    assert.ok(got?.createdAt instanceof Date);
    assert.equal(await store.get(["users", "42", "prefs"], "nope"), null);
    assert.equal((await m.get({ key: "langgraph://users/42/prefs/theme" })).agent_id, m.agentId);

    const hits = await store.search(["users", "42"], { query: "what does the user eat?" });
    assert.equal(hits[0]?.key, "food");
    const all = await store.search(["users", "42"]);
    assert.deepEqual(
      all.map((i) => i.key),
      ["food", "theme"],
    );
    assert.deepEqual(
      (await store.search(["users"], { filter: { level: 2 } })).map((i) => i.key),
      ["food"],
    );
    assert.deepEqual(await store.listNamespaces({ prefix: ["users"] }), [["users", "42", "prefs"], ["users", "7"]]);
    assert.deepEqual(await store.listNamespaces({ maxDepth: 1 }), [["users"]]);

    await store.delete(["users", "42", "prefs"], "theme");
    assert.equal(await store.get(["users", "42", "prefs"], "theme"), null);
  });

  it("is the long-term memory of a compiled graph", async () => {
    const m = client("lg");
    const store = new MnemoStore(m);
    const State = Annotation.Root({ ...MessagesAnnotation.spec });
    const graph = new StateGraph(State)
      .addNode("agent", async (state: typeof State.State, config: LangGraphRunnableConfig) => {
        const said = String(state.messages.at(-1)?.content ?? "");
        const ns = ["memories", "u1"];
        const before = await config.store!.search(ns, { query: said });
        await config.store!.put(ns, `m${before.length}`, { text: said });
        return { messages: [new AIMessage(`I knew ${before.length} things`)] };
      })
      .addEdge("__start__", "agent")
      .compile({ store });
    await graph.invoke({ messages: [new HumanMessage("My dog is called Rex")] });
    const out = await graph.invoke({ messages: [new HumanMessage("What is my dog called?")] });
    assert.equal(out.messages.at(-1)?.content, "I knew 1 things");
    assert.equal((await store.search(["memories", "u1"])).length, 2);
  });
});
