import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AIMessage, HumanMessage } from "@langchain/core/messages";
import { ChatPromptTemplate, MessagesPlaceholder } from "@langchain/core/prompts";
import { RunnableWithMessageHistory } from "@langchain/core/runnables";
import { FakeChatModel } from "@langchain/core/utils/testing";
import { MnemoChatMessageHistory } from "@mnemo-dev/client/langchain";
import * as langgraph from "@mnemo-dev/client/langgraph";
import { client } from "./env.js";

describe("@mnemo-dev/client/langchain", () => {
  it("keeps LangChain chat history as a session", async () => {
    assert.equal(langgraph.MnemoChatMessageHistory, MnemoChatMessageHistory, "@mnemo-dev/client/langgraph re-exports it");
    const m = client("lc");
    const h = new MnemoChatMessageHistory(m, "chat-1");
    await h.addMessages([new HumanMessage("I am planning a trip to Kyoto"), new AIMessage("Kyoto is lovely in autumn")]);
    await h.addMessage(new HumanMessage("Book the ryokan for November"));
    const msgs = await h.getMessages();
    assert.deepEqual(
      msgs.map((x) => [x.getType(), x.text]),
      [
        ["human", "I am planning a trip to Kyoto"],
        ["ai", "Kyoto is lovely in autumn"],
        ["human", "Book the ryokan for November"],
      ],
    );
    assert.equal((await m.sessions.get({ session_id: "chat-1" })).turn_count, 2, "human messages reach working memory");
    assert.match((await m.recall({ query: "ryokan" })).results?.[0]?.content ?? "", /ryokan/);
    await h.clear();
    assert.deepEqual(await h.getMessages(), []);
    await assert.rejects(m.sessions.get({ session_id: "chat-1" }), { code: "not_found" });
  });

  it("gives a chain with RunnableWithMessageHistory its history", async () => {
    const m = client("lc");
    // FakeChatModel answers with every message it was given, one a line.
    const prompt = ChatPromptTemplate.fromMessages([
      ["system", "Be brief."],
      new MessagesPlaceholder("history"),
      ["human", "{question}"],
    ]);
    const chain = new RunnableWithMessageHistory({
      runnable: prompt.pipe(new FakeChatModel({})),
      getMessageHistory: (sessionId: string) => new MnemoChatMessageHistory(m, sessionId),
      inputMessagesKey: "question",
      historyMessagesKey: "history",
    });
    const config = { configurable: { sessionId: "chat-2" } };
    await chain.invoke({ question: "My name is Ada" }, config);
    const second = await chain.invoke({ question: "What is my name?" }, config);
    assert.equal(
      second.content,
      "Be brief.\nMy name is Ada\nBe brief.\nMy name is Ada\nWhat is my name?",
      "the second call saw the first turn and its answer",
    );
    assert.equal((await new MnemoChatMessageHistory(m, "chat-2").getMessages()).length, 4);
  });
});
