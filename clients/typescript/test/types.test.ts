// types.test.ts checks at compile time (tsc runs on test/) that the client's
// requests and answers are the types generated from /openapi.json, not any:
// each @ts-expect-error line must be an error, or tsc fails.
import assert from "node:assert/strict";
import { it } from "node:test";
import type { Answer, Body, ErrorCode, Memory, Mnemo, RecallResult, WriteResult } from "@mnemo-dev/client";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const yes = <T extends true>(): T => true as T;

// Answers are the generated ones, and not any.
yes<Equal<Awaited<ReturnType<Mnemo["remember"]>>, WriteResult>>();
yes<Equal<Awaited<ReturnType<Mnemo["recall"]>>, RecallResult>>();
yes<Equal<Awaited<ReturnType<Mnemo["get"]>>, Memory>>();
// @ts-expect-error -- an answer is not any
yes<Equal<Answer<"postV1Recall">, any>>();
yes<Equal<Memory["content"], string>>();

async function compileOnly(m: Mnemo) {
  // @ts-expect-error -- content is a string
  await m.remember({ content: 42 });
  // @ts-expect-error -- no such field
  await m.recall({ query: "x", nope: true });
  // @ts-expect-error -- query is required
  await m.recall({ limit: 3 });
  // @ts-expect-error -- no such field on the answer
  (await m.recall({ query: "x" })).nope;
  // @ts-expect-error -- a message needs role and content
  await m.addMessages({ session_id: "s", messages: [{ text: "hi" }] });
  // agent_id is optional everywhere: the client's is the default.
  const b: Body<"postV1Memories"> = { content: "x" };
  await m.remember(b);
  await m.sessions.turn({ session_id: "s", text: "hi" });
  // @ts-expect-error -- a run id is required
  await m.runs.get({});
  const code: ErrorCode = "rate_limited";
  // @ts-expect-error -- not a problem code
  const bad: ErrorCode = "teapot";
  return [code, bad];
}

it("type checks (at compile time)", () => {
  assert.equal(typeof compileOnly, "function");
});
