// @mnemo-dev/client/ai: memory for the Vercel AI SDK (`ai`). mnemoTools gives a model
// remember and recall tools; withMemory puts what the agent knows (boot or
// a snapshot) into the system prompt.
//
//   const mnemo = new Mnemo({ baseUrl, apiKey, agentId: "support-bot" });
//   const { text } = await generateText({
//     model, tools: mnemoTools(mnemo), stopWhen: stepCountIs(5),
//     system: await withMemory(mnemo, "You are a support agent."), prompt,
//   });
import { tool } from "ai";
import { z } from "zod";
import type { Mnemo } from "./index.js";

/** mnemoTools returns the remember and recall tools of an agent's memory. */
export function mnemoTools(mnemo: Mnemo, opts: { recallLimit?: number } = {}) {
  return {
    remember: tool({
      description:
        "Remember a fact, preference or decision for later conversations. Give a key such as /user/prefs/theme to replace what that key held.",
      inputSchema: z.object({
        content: z.string().describe("What to remember, as one self-contained sentence"),
        key: z.string().optional().describe("A path naming the fact, such as /user/prefs/theme"),
        tags: z.array(z.string()).optional(),
      }),
      execute: async ({ content, key, tags }) => {
        const w = await mnemo.remember({ content, key, tags });
        return { id: w.id, key: w.key, guard: w.guard?.action };
      },
    }),
    recall: tool({
      description: "Recall what is remembered about a question: facts, preferences, past conversations.",
      inputSchema: z.object({
        query: z.string().describe("What to look for"),
        limit: z.number().int().min(1).max(50).optional(),
      }),
      // What matches nothing asked is left out (min_match weak): the model
      // is told that no memory is relevant, not handed the nearest ones.
      execute: async ({ query, limit }) => {
        const r = await mnemo.recall({ query, limit: limit ?? opts.recallLimit ?? 5, min_match: "weak" });
        const memories = (r.results ?? []).map((m) => ({ id: m.id, key: m.key, content: m.content, created_at: m.created_at, match: m.match }));
        return memories.length ? memories : { memories, note: r.hint ?? "No relevant memory found." };
      },
    }),
  };
}

/**
 * withMemory returns system followed by what the agent knows: with a
 * trigger, the snapshot of memories for it within tokenLimit; otherwise the
 * boot text (who the agent is, what it should know, recent events).
 */
export async function withMemory(
  mnemo: Mnemo,
  system: string,
  opts: { trigger?: { type: string; payload?: unknown }; focus?: string; tokenLimit?: number } = {},
): Promise<string> {
  const text = opts.trigger
    ? (await mnemo.snapshot({ trigger: opts.trigger, focus: opts.focus, token_limit: opts.tokenLimit })).text
    : ((await mnemo.boot()).text ?? "");
  return text.trim() === "" ? system : `${system}\n\n# Memory\n${text.trim()}`;
}
