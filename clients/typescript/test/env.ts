// env.ts: the server scripts/clients-test.sh started for every suite.
import { randomUUID } from "node:crypto";
import { Mnemo } from "@mnemo-dev/client";

function need(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the tests with scripts/clients-test.sh`);
  return v;
}

export const baseUrl = need("MNEMO_URL");
export const apiKey = need("MNEMO_TEST_KEY");
export const readKey = need("MNEMO_TEST_READ_KEY");

/** client returns a client of a fresh agent, so that tests do not meet. */
export function client(prefix = "ts"): Mnemo {
  return new Mnemo({ baseUrl, apiKey, agentId: `${prefix}-${randomUUID().slice(0, 8)}` });
}
