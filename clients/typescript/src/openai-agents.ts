// @mnemo-dev/client/openai-agents: a Session of the OpenAI Agents SDK (@openai/agents)
// kept in mnemo. Each item is a message of the session (POST /v1/messages),
// so it is recalled with the agent's other memories; user messages also
// update the session's working memory (topic, turn count).
//
//   const session = new MnemoSession(mnemo, "chat-42");
//   await run(agent, "Book me a table", { session });
import type { AgentInputItem, Session } from "@openai/agents";
import type { Mnemo } from "./index.js";

const textRoles = new Set(["user", "assistant", "system", "developer"]);
/** The role of an item that is no plain text message: its JSON is the content. */
const itemRole = "item";

/** textOf returns a message item's text, or undefined when it has more than text. */
function textOf(item: AgentInputItem): string | undefined {
  const m = item as { type?: string; role?: string; content?: unknown };
  if ((m.type !== undefined && m.type !== "message") || !m.role || !textRoles.has(m.role)) return undefined;
  if (typeof m.content === "string") return m.content;
  if (m.role !== "assistant" || !Array.isArray(m.content)) return undefined;
  const parts = m.content as { type?: string; text?: string }[];
  return parts.every((p) => p.type === "output_text" && typeof p.text === "string") ? parts.map((p) => p.text).join("") : undefined;
}

/** itemOf rebuilds an item from a stored message. */
function itemOf(role: string, content: string): AgentInputItem {
  if (role === itemRole) return JSON.parse(content) as AgentInputItem;
  if (role === "assistant") {
    return { type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: content }] };
  }
  return { type: "message", role, content } as AgentInputItem;
}

export class MnemoSession implements Session {
  constructor(
    private readonly mnemo: Mnemo,
    private readonly sessionId: string,
  ) {}

  async getSessionId(): Promise<string> {
    return this.sessionId;
  }

  /** The session's items, oldest first; the latest limit of them when given. */
  async getItems(limit?: number): Promise<AgentInputItem[]> {
    const stored = await this.messages();
    const items = stored.map((m) => itemOf(m.role, m.content));
    return limit === undefined ? items : items.slice(Math.max(0, items.length - limit));
  }

  async addItems(items: AgentInputItem[]): Promise<void> {
    if (items.length === 0) return;
    const messages = items.map((item) => {
      const text = textOf(item);
      return text !== undefined
        ? { role: (item as { role: string }).role, content: text }
        : { role: itemRole, content: JSON.stringify(item) };
    });
    await this.mnemo.addMessages({ session_id: this.sessionId, messages });
    for (const m of messages) {
      if (m.role === "user" && m.content.trim() !== "") {
        await this.mnemo.sessions.turn({ session_id: this.sessionId, role: "user", text: m.content });
      }
    }
  }

  async popItem(): Promise<AgentInputItem | undefined> {
    const last = (await this.messages()).at(-1);
    if (!last) return undefined;
    await this.mnemo.forget({ id: last.id });
    return itemOf(last.role, last.content);
  }

  /** clearSession forgets the session's messages and ends its working memory. */
  async clearSession(): Promise<void> {
    for (const m of await this.messages()) await this.mnemo.forget({ id: m.id });
    await this.mnemo.sessions.end({ session_id: this.sessionId }).catch((e: unknown) => {
      if ((e as { code?: string }).code !== "not_found") throw e;
    });
  }

  /** messages returns the session's stored messages, oldest first. */
  private async messages(): Promise<{ id: string; role: string; content: string }[]> {
    const out: { id: string; role: string; content: string }[] = [];
    for (let offset: number | null | undefined = 0; offset !== undefined && offset !== null; ) {
      const page = await this.mnemo.list({ session_id: this.sessionId, types: ["event"], order: "oldest", limit: 500, offset });
      for (const m of page.memories ?? []) {
        const role = (m.data as { role?: string } | undefined)?.role;
        if (role) out.push({ id: m.id, role, content: m.content });
      }
      offset = page.has_more ? page.next_offset : undefined;
    }
    return out;
  }
}
