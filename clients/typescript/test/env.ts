// env.ts: the server scripts/clients-test.sh started for every suite.
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { Mnemo, type MnemoOptions } from "@mnemo-dev/client";

function need(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the tests with scripts/clients-test.sh`);
  return v;
}

export const baseUrl = need("MNEMO_URL");
export const apiKey = need("MNEMO_TEST_KEY");
export const readKey = need("MNEMO_TEST_READ_KEY");

/**
 * scale is how many times slower than a quiet machine this one runs now, by
 * the rule of scripts/testwait.mjs (which dist/ cannot import): runnable
 * threads per core (the larger of the 1- and 5-minute load averages and,
 * on Linux, those runnable at this moment), at least 1, times
 * MNEMO_TEST_TIMEOUT_SCALE.
 */
export function scale(): number {
  let load = Math.max(...loadavg().slice(0, 2));
  try {
    const run = Number(readFileSync("/proc/loadavg", "utf8").split(/\s+/)[3]?.split("/")[0]);
    if (run - 1 > load) load = run - 1;
  } catch {
    // not Linux: the averages alone
  }
  const env = Number(process.env.MNEMO_TEST_TIMEOUT_SCALE);
  return Math.max(1, load / availableParallelism()) * (env > 0 ? env : 1);
}

/**
 * connect returns a client whose time limit per attempt is the client's
 * default (30 s) stretched by the slowdown now, so that a test fails when
 * the server never answers, never because the machine is busy (QUAL-3).
 */
export function connect(opts: MnemoOptions): Mnemo {
  return new Mnemo({ timeoutMs: Math.round(30_000 * scale()), ...opts });
}

/** client returns a client of a fresh agent, so that tests do not meet. */
export function client(prefix = "ts"): Mnemo {
  return connect({ baseUrl, apiKey, agentId: `${prefix}-${randomUUID().slice(0, 8)}` });
}
