// @mnemo-dev/client/langchain: a LangChain.js chat message history kept as a mnemo
// session. It needs only @langchain/core (@mnemo-dev/client/langgraph re-exports it).
//
//   const chain = new RunnableWithMessageHistory({
//     runnable: prompt.pipe(model),
//     getMessageHistory: (sessionId) => new MnemoChatMessageHistory(mnemo, sessionId),
//     inputMessagesKey: "question", historyMessagesKey: "history",
//   });
//
// Each message is stored with POST /v1/messages under the session, so it is
// recalled with the agent's other memories; a human message also updates the
// session's working memory (POST /v1/sessions/{id}/turns: topic, turn count),
// and clear() forgets the messages and ends that working memory.
import { BaseListChatMessageHistory } from "@langchain/core/chat_history";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { Memory, Mnemo } from "./index.js";

const roles: Record<string, string> = { human: "user", ai: "assistant", system: "system" };

export class MnemoChatMessageHistory extends BaseListChatMessageHistory {
  lc_namespace = ["mnemo", "langchain"];

  constructor(
    private readonly mnemo: Mnemo,
    readonly sessionId: string,
  ) {
    super();
  }

  /** The session's messages, oldest first. */
  async getMessages(): Promise<BaseMessage[]> {
    const out: BaseMessage[] = [];
    for (const m of await this.stored()) {
      const role = (m.data as { role?: string } | undefined)?.role;
      if (role === "user") out.push(new HumanMessage(m.content));
      else if (role === "assistant") out.push(new AIMessage(m.content));
      else if (role === "system") out.push(new SystemMessage(m.content));
    }
    return out;
  }

  async addMessage(message: BaseMessage): Promise<void> {
    await this.addMessages([message]);
  }

  async addMessages(messages: BaseMessage[]): Promise<void> {
    const ms = messages.map((m) => {
      const role = roles[m.getType()];
      if (!role) throw new TypeError(`mnemo: a ${m.getType()} message cannot be kept in a chat history; human, ai and system can`);
      return { role, content: m.text };
    });
    if (ms.length === 0) return;
    await this.mnemo.addMessages({ session_id: this.sessionId, messages: ms });
    for (const m of ms) {
      if (m.role === "user" && m.content.trim() !== "") {
        await this.mnemo.sessions.turn({ session_id: this.sessionId, role: "user", text: m.content });
      }
    }
  }

  /** clear forgets the session's messages and ends its working memory. */
  async clear(): Promise<void> {
    for (const m of await this.stored()) await this.mnemo.forget({ id: m.id });
    await this.mnemo.sessions.end({ session_id: this.sessionId }).catch((e: unknown) => {
      if ((e as { code?: string }).code !== "not_found") throw e;
    });
  }

  private async stored(): Promise<Memory[]> {
    const out: Memory[] = [];
    for (let off: number | null | undefined = 0; off !== undefined && off !== null; ) {
      const page = await this.mnemo.list({ session_id: this.sessionId, types: ["event"], order: "oldest", limit: 1000, offset: off });
      out.push(...(page.memories ?? []));
      off = page.has_more ? page.next_offset : undefined;
    }
    return out;
  }
}
