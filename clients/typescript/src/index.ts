// The mnemo client: one method per operation of mnemo's HTTP API, with the
// request and answer types generated from the server's /openapi.json
// (src/openapi.ts). It needs nothing but fetch.
import type { operations } from "./openapi.js";

export type { operations, paths, components } from "./openapi.js";

type Ops = operations;
type JSONBody<O> = O extends { requestBody: { content: { "application/json": infer B } } } ? B : never;
type JSONAnswer<O> = O extends { responses: infer R }
  ? R extends { 200: { content: { "application/json": infer A } } }
    ? A
    : R extends { 201: { content: { "application/json": infer A } } }
      ? A
      : never
  : never;
type Query<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type Path<O> = O extends { parameters: { path: infer P } } ? P : unknown;

/** The agent_id of every call defaults to the client's. */
type Agent<T> = Omit<T, "agent_id"> & { agent_id?: string };
/** A request body's fields, agent_id optional. */
export type Body<K extends keyof Ops> = Agent<JSONBody<Ops[K]>>;
/** A route's query parameters and path parameters as one object. */
export type Params<K extends keyof Ops> = Agent<Query<Ops[K]>> & Path<Ops[K]>;
/** The JSON answer of an operation. */
export type Answer<K extends keyof Ops> = JSONAnswer<Ops[K]>;

export type Memory = Answer<"getV1MemoriesById">;
export type WriteResult = Answer<"postV1Memories">;
export type RecallResult = Answer<"postV1Recall">;
/** One line of an export: a memory as POST /v1/import reads it back. */
export type ExportedMemory = Ops["postV1Import"] extends {
  requestBody: { content: { "application/x-ndjson": infer M } };
}
  ? M
  : never;

/** The stable problem codes of mnemo's errors. */
export type ErrorCode =
  | "conflict"
  | "forbidden"
  | "internal"
  | "invalid_input"
  | "model_mismatch"
  | "not_found"
  | "rate_limited"
  | "too_large"
  | "unauthorized"
  | "unavailable";

/**
 * MnemoError is a failed call: the server's problem+json body, or a
 * connection failure (status 0, code "unavailable"). Switch on code, which is
 * stable; detail is for people.
 */
export class MnemoError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly detail: string;
  readonly title: string;
  readonly type: string;
  readonly instance: string;
  /** Seconds the server asked to wait (Retry-After), when it did. */
  readonly retryAfter: number | undefined;

  constructor(init: {
    code: ErrorCode;
    status: number;
    detail?: string;
    title?: string;
    type?: string;
    instance?: string;
    retryAfter?: number;
    cause?: unknown;
  }) {
    super(`${init.code} (${init.status}): ${init.detail || init.title || "no detail"}`, { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code;
    this.status = init.status;
    this.detail = init.detail ?? "";
    this.title = init.title ?? "";
    this.type = init.type ?? "";
    this.instance = init.instance ?? "";
    this.retryAfter = init.retryAfter;
  }
}

export class InvalidInputError extends MnemoError {}
export class NotFoundError extends MnemoError {}
export class ConflictError extends MnemoError {}
export class TooLargeError extends MnemoError {}
export class UnauthorizedError extends MnemoError {}
export class ForbiddenError extends MnemoError {}
export class RateLimitedError extends MnemoError {}
export class UnavailableError extends MnemoError {}
export class ModelMismatchError extends MnemoError {}
export class InternalError extends MnemoError {}

const errorClasses: Record<ErrorCode, typeof MnemoError> = {
  invalid_input: InvalidInputError,
  not_found: NotFoundError,
  conflict: ConflictError,
  too_large: TooLargeError,
  unauthorized: UnauthorizedError,
  forbidden: ForbiddenError,
  rate_limited: RateLimitedError,
  unavailable: UnavailableError,
  model_mismatch: ModelMismatchError,
  internal: InternalError,
};

/** codeOfStatus names a failure whose body is not a problem (a proxy's page). */
function codeOfStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
    case 422:
      return "invalid_input";
    case 401:
      return "unauthorized";
    case 403:
      return "forbidden";
    case 404:
      return "not_found";
    case 409:
      return "conflict";
    case 413:
      return "too_large";
    case 429:
      return "rate_limited";
    case 502:
    case 503:
    case 504:
      return "unavailable";
  }
  return "internal";
}

/** The stable problem codes of mnemo's errors, as the server's /openapi.json lists them. */
export const errorCodes = Object.keys(errorClasses).sort() as ErrorCode[];

function makeError(init: ConstructorParameters<typeof MnemoError>[0]): MnemoError {
  const cls = errorClasses[init.code] ?? MnemoError;
  return new cls(init);
}

/** retryAfterSeconds parses Retry-After: seconds or an HTTP date. */
function retryAfterSeconds(h: string | null, now = Date.now()): number | undefined {
  if (h === null || h.trim() === "") return undefined;
  const s = Number(h);
  if (Number.isFinite(s)) return Math.max(0, s);
  const t = Date.parse(h);
  return Number.isNaN(t) ? undefined : Math.max(0, (t - now) / 1000);
}

export interface MnemoOptions {
  /** The server, such as http://127.0.0.1:7077. */
  baseUrl: string;
  /** An API key, sent as a bearer token; the key decides the tenant. */
  apiKey?: string;
  /** The agent of every call that names none. */
  agentId?: string;
  /** Retries of a 429 or 503 answer (default 3; 0 = none). */
  maxRetries?: number;
  /** The longest wait before one retry, in ms (default 10000); a longer Retry-After fails the call. */
  maxRetryDelayMs?: number;
  /** Each attempt's time limit, in ms (default 30000). */
  timeoutMs?: number;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

interface RequestOptions {
  query?: Record<string, unknown>;
  body?: unknown;
  /** The body as text, with its media type. */
  raw?: { text: string; type: string };
  /** Return the answer's text rather than parsed JSON. */
  text?: boolean;
}

/**
 * Mnemo is a client of one mnemo server for one agent. Every method takes
 * the request's fields as one object, named as in the HTTP API, and returns
 * the answer's JSON; a failure throws a MnemoError.
 *
 *   const mnemo = new Mnemo({ baseUrl: "http://127.0.0.1:7077", apiKey, agentId: "support-bot" });
 *   await mnemo.remember({ content: "The user prefers dark mode", key: "/user/prefs/theme" });
 *   const { results } = await mnemo.recall({ query: "what theme?" });
 */
export class Mnemo {
  readonly baseUrl: string;
  readonly agentId: string | undefined;
  private readonly apiKey: string | undefined;
  private readonly maxRetries: number;
  private readonly maxRetryDelayMs: number;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  /** Working memory of sessions: GET/POST/DELETE /v1/sessions. */
  readonly sessions: Sessions;
  /** Runs' short-term memory: /v1/runs. */
  readonly runs: Runs;
  /** The event log (L1) and its search: /v1/events. */
  readonly events: Events;

  constructor(opts: MnemoOptions) {
    if (!opts || !opts.baseUrl) throw new TypeError("mnemo: baseUrl is required, such as http://127.0.0.1:7077");
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.apiKey = opts.apiKey;
    this.agentId = opts.agentId;
    this.maxRetries = opts.maxRetries ?? 3;
    this.maxRetryDelayMs = opts.maxRetryDelayMs ?? 10_000;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.fetch = opts.fetch ?? globalThis.fetch;
    this.sessions = new Sessions(this);
    this.runs = new Runs(this);
    this.events = new Events(this);
  }

  /** Remember one memory (POST /v1/memories). With a key it upserts that key. */
  remember(body: Body<"postV1Memories">): Promise<Answer<"postV1Memories">> {
    return this.request("POST", "/v1/memories", { body: this.withAgent(body) });
  }

  /** Remember many memories, all or none (POST /v1/memories/batch). */
  rememberMany(body: Body<"postV1MemoriesBatch">): Promise<Answer<"postV1MemoriesBatch">> {
    return this.request("POST", "/v1/memories/batch", { body: this.withAgent(body) });
  }

  /** The memories that matter for a query, recording an access (POST /v1/recall). */
  recall(body: Body<"postV1Recall">): Promise<Answer<"postV1Recall">> {
    return this.request("POST", "/v1/recall", { body: this.withAgent(body) });
  }

  /** Recall without recording an access (POST /v1/surface). */
  surface(body: Body<"postV1Surface">): Promise<Answer<"postV1Surface">> {
    return this.request("POST", "/v1/surface", { body: this.withAgent(body) });
  }

  /** A memory by id (GET /v1/memories/{id}) or the live memory of a key (GET /v1/keys). */
  get(
    params: (Params<"getV1MemoriesById"> & { key?: never }) | Params<"getV1Keys">,
  ): Promise<Answer<"getV1MemoriesById">> {
    if ("id" in params && params.id !== undefined) {
      const { id, ...query } = params as { id: string };
      return this.request("GET", `/v1/memories/${encodeURIComponent(id)}`, { query: this.withAgent(query) });
    }
    return this.request("GET", "/v1/keys", { query: this.withAgent(params) });
  }

  /** A page of memories (GET /v1/memories). */
  list(params: Params<"getV1Memories"> = {}): Promise<Answer<"getV1Memories">> {
    return this.request("GET", "/v1/memories", { query: this.withAgent(params) });
  }

  /** The revisions of a key, oldest first (GET /v1/history). */
  history(params: Params<"getV1History">): Promise<Answer<"getV1History">> {
    return this.request("GET", "/v1/history", { query: this.withAgent(params) });
  }

  /**
   * Forget a memory by id, some keys, or (all: true, admin scope) every
   * memory of the agent (DELETE /v1/memories/{id} or /v1/memories).
   */
  forget(
    params: { id: string; agent_id?: string } | Params<"deleteV1Memories">,
  ): Promise<Answer<"deleteV1Memories">> {
    if ("id" in params) {
      const { id, ...query } = params;
      return this.request("DELETE", `/v1/memories/${encodeURIComponent(id)}`, { query: this.withAgent(query) });
    }
    return this.request("DELETE", "/v1/memories", { query: this.withAgent(params) });
  }

  /** Store a conversation's messages as the session's events (POST /v1/messages). */
  addMessages(body: Body<"postV1Messages">): Promise<Answer<"postV1Messages">> {
    return this.request("POST", "/v1/messages", { body: this.withAgent(body) });
  }

  /** Warm start: who the agent is and what it should know; text is for a system prompt (GET /v1/boot). */
  boot(params: Params<"getV1Boot"> = {}): Promise<Answer<"getV1Boot">> {
    return this.request("GET", "/v1/boot", { query: this.withAgent(params) });
  }

  /** The memories a run starts with, rendered within a token limit (POST /v1/snapshot). */
  snapshot(body: Body<"postV1Snapshot">): Promise<Answer<"postV1Snapshot">> {
    return this.request("POST", "/v1/snapshot", { body: this.withAgent(body) });
  }

  /** The default read: the memories for a prompt, with no query (POST /v1/read). */
  read(body: Body<"postV1Read">): Promise<Answer<"postV1Read">> {
    return this.request("POST", "/v1/read", { body: this.withAgent(body) });
  }

  /** Run the sleep cycle: decay, tidy, retention (POST /v1/reflect). */
  reflect(body: Body<"postV1Reflect"> = {}): Promise<Answer<"postV1Reflect">> {
    return this.request("POST", "/v1/reflect", { body: this.withAgent(body) });
  }

  /** Count the agent's memories (GET /v1/stats). */
  stats(params: Params<"getV1Stats"> = {}): Promise<Answer<"getV1Stats">> {
    return this.request("GET", "/v1/stats", { query: this.withAgent(params) });
  }

  /** Every live memory of the agent, oldest first (GET /v1/export, JSON Lines). */
  async export(params: Params<"getV1Export"> = {}): Promise<ExportedMemory[]> {
    const text = await this.request<string>("GET", "/v1/export", { query: this.withAgent(params), text: true });
    return text
      .split("\n")
      .filter((l) => l.trim() !== "")
      .map((l) => JSON.parse(l) as ExportedMemory);
  }

  /** Read exported memories back into the agent (POST /v1/import); a bad one stores nothing. */
  import(
    params: Params<"postV1Import"> & { memories: ExportedMemory[] | string },
  ): Promise<Answer<"postV1Import">> {
    const { memories, ...query } = params;
    const text = typeof memories === "string" ? memories : memories.map((m) => JSON.stringify(m)).join("\n") + "\n";
    return this.request("POST", "/v1/import", {
      query: this.withAgent(query),
      raw: { text, type: "application/x-ndjson" },
    });
  }

  /** Report that the server is up (GET /healthz). */
  health(): Promise<Answer<"getHealthz">> {
    return this.request("GET", "/healthz", {});
  }

  /** withAgent fills in the client's agent where the caller named none. */
  withAgent<T extends object>(o: T): T & { agent_id?: string } {
    const a = o as T & { agent_id?: string };
    return a.agent_id === undefined && this.agentId !== undefined ? { ...a, agent_id: this.agentId } : a;
  }

  /**
   * request makes one call of the API, retrying a 429 or 503 answer after
   * the wait its Retry-After asks (or a short backoff), at most maxRetries
   * times. It is public for routes the class has no method for.
   */
  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const url = new URL(this.baseUrl + path);
    for (const [k, v] of Object.entries(opts.query ?? {})) {
      if (v === undefined || v === null) continue;
      for (const item of Array.isArray(v) ? v : [v]) url.searchParams.append(k, String(item));
    }
    const headers: Record<string, string> = { accept: "application/json, application/problem+json" };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let payload: string | undefined;
    if (opts.raw) {
      payload = opts.raw.text;
      headers["content-type"] = opts.raw.type;
    } else if (opts.body !== undefined) {
      payload = JSON.stringify(opts.body);
      headers["content-type"] = "application/json";
    }
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        res = await this.fetch(url, {
          method,
          headers,
          body: payload,
          signal: AbortSignal.timeout(this.timeoutMs),
        });
      } catch (err) {
        throw new UnavailableError({
          code: "unavailable",
          status: 0,
          detail: `${method} ${url.pathname}: ${err instanceof Error ? err.message : String(err)}`,
          cause: err,
        });
      }
      if (res.ok) {
        if (opts.text) return (await res.text()) as T;
        return (await res.json()) as T;
      }
      const err = await problemOf(res);
      if ((res.status === 429 || res.status === 503) && attempt < this.maxRetries) {
        const wait = err.retryAfter !== undefined ? err.retryAfter * 1000 : 250 * 2 ** attempt;
        if (wait <= this.maxRetryDelayMs) {
          await new Promise((r) => setTimeout(r, wait));
          continue;
        }
      }
      throw err;
    }
  }
}

async function problemOf(res: Response): Promise<MnemoError> {
  const retryAfter = retryAfterSeconds(res.headers.get("retry-after"));
  const text = await res.text();
  let p: { code?: string; detail?: string; title?: string; type?: string; instance?: string } = {};
  try {
    p = JSON.parse(text);
  } catch {
    p = { detail: text.slice(0, 200) };
  }
  const code = (typeof p.code === "string" && p.code in errorClasses ? p.code : codeOfStatus(res.status)) as ErrorCode;
  return makeError({ code, status: res.status, detail: p.detail, title: p.title, type: p.type, instance: p.instance, retryAfter });
}

/** Sessions' working memory. */
export class Sessions {
  constructor(private readonly c: Mnemo) {}

  /** The agent's sessions with working memory (GET /v1/sessions). */
  list(params: Params<"getV1Sessions"> = {}): Promise<Answer<"getV1Sessions">> {
    return this.c.request("GET", "/v1/sessions", { query: this.c.withAgent(params) });
  }

  /** A session's working memory (GET /v1/sessions/{session_id}). */
  get(params: Params<"getV1SessionsBySessionId">): Promise<Answer<"getV1SessionsBySessionId">> {
    const { session_id, ...query } = params;
    return this.c.request("GET", `/v1/sessions/${encodeURIComponent(session_id)}`, { query: this.c.withAgent(query) });
  }

  /** Record a message in a session's working memory (POST /v1/sessions/{session_id}/turns). */
  turn(
    params: Body<"postV1SessionsBySessionIdTurns"> & { session_id: string },
  ): Promise<Answer<"postV1SessionsBySessionIdTurns">> {
    const { session_id, ...body } = params;
    return this.c.request("POST", `/v1/sessions/${encodeURIComponent(session_id)}/turns`, {
      body: this.c.withAgent(body),
    });
  }

  /** End a session; archive: true keeps its facts as memories (DELETE /v1/sessions/{session_id}). */
  end(params: Params<"deleteV1SessionsBySessionId">): Promise<Answer<"deleteV1SessionsBySessionId">> {
    const { session_id, ...query } = params;
    return this.c.request("DELETE", `/v1/sessions/${encodeURIComponent(session_id)}`, {
      query: this.c.withAgent(query),
    });
  }
}

/** Runs' short-term memory. */
export class Runs {
  constructor(private readonly c: Mnemo) {}

  /** Open a run (POST /v1/runs). */
  open(body: Body<"postV1Runs">): Promise<Answer<"postV1Runs">> {
    return this.c.request("POST", "/v1/runs", { body: this.c.withAgent(body) });
  }

  /** The agent's open runs (GET /v1/runs). */
  list(params: Params<"getV1Runs"> = {}): Promise<Answer<"getV1Runs">> {
    return this.c.request("GET", "/v1/runs", { query: this.c.withAgent(params) });
  }

  /** Render a run (GET /v1/runs/{run_id}). */
  get(params: Params<"getV1RunsByRunId">): Promise<Answer<"getV1RunsByRunId">> {
    const { run_id, ...query } = params;
    return this.c.request("GET", `/v1/runs/${encodeURIComponent(run_id)}`, { query: this.c.withAgent(query) });
  }

  /** Record a function call and its result (POST /v1/runs/{run_id}/calls). */
  call(params: Body<"postV1RunsByRunIdCalls"> & { run_id: string }): Promise<Answer<"postV1RunsByRunIdCalls">> {
    return this.post("calls", params);
  }

  /** Record the model's intermediate response (POST /v1/runs/{run_id}/responses). */
  respond(
    params: Body<"postV1RunsByRunIdResponses"> & { run_id: string },
  ): Promise<Answer<"postV1RunsByRunIdResponses">> {
    return this.post("responses", params);
  }

  /** Inject a temporary instruction (POST /v1/runs/{run_id}/instructions). */
  instruct(
    params: Body<"postV1RunsByRunIdInstructions"> & { run_id: string },
  ): Promise<Answer<"postV1RunsByRunIdInstructions">> {
    return this.post("instructions", params);
  }

  /** Close a run (DELETE /v1/runs/{run_id}). */
  close(params: Params<"deleteV1RunsByRunId">): Promise<Answer<"deleteV1RunsByRunId">> {
    const { run_id, ...query } = params;
    return this.c.request("DELETE", `/v1/runs/${encodeURIComponent(run_id)}`, { query: this.c.withAgent(query) });
  }

  private post<T>(what: string, params: { run_id: string }): Promise<T> {
    const { run_id, ...body } = params;
    return this.c.request("POST", `/v1/runs/${encodeURIComponent(run_id)}/${what}`, { body: this.c.withAgent(body) });
  }
}

/** The event log. */
export class Events {
  constructor(private readonly c: Mnemo) {}

  /** Append an event (POST /v1/events). */
  append(body: Body<"postV1Events">): Promise<Answer<"postV1Events">> {
    return this.c.request("POST", "/v1/events", { body: this.c.withAgent(body) });
  }

  /** Append many events at once (POST /v1/events/batch). */
  appendMany(body: Body<"postV1EventsBatch">): Promise<Answer<"postV1EventsBatch">> {
    return this.c.request("POST", "/v1/events/batch", { body: this.c.withAgent(body) });
  }

  /** Events in order, a page at a time (GET /v1/events). */
  list(params: Params<"getV1Events"> = {}): Promise<Answer<"getV1Events">> {
    return this.c.request("GET", "/v1/events", { query: this.c.withAgent(params) });
  }

  /** An event by id (GET /v1/events/{id}). */
  get(params: Params<"getV1EventsById">): Promise<Answer<"getV1EventsById">> {
    const { id, ...query } = params;
    return this.c.request("GET", `/v1/events/${encodeURIComponent(id)}`, { query: this.c.withAgent(query) });
  }

  /** Events by meaning (POST /v1/events/search). */
  search(body: Body<"postV1EventsSearch">): Promise<Answer<"postV1EventsSearch">> {
    return this.c.request("POST", "/v1/events/search", { body: this.c.withAgent(body) });
  }
}
