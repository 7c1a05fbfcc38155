// @mnemo-dev/client/langgraph: LangGraph.js long-term memory and LangChain.js chat
// history on mnemo.
//
// MnemoStore is a BaseStore: the item at namespace ["users", "42"] and key
// "prefs" is the memory of key langgraph://users/42/prefs of the client's
// agent (the tenant is the API key's), its value the memory's data; search
// with a query is mnemo's recall under the namespace, without one a list.
//
//   const store = new MnemoStore(mnemo);
//   const graph = builder.compile({ store });
//
// MnemoChatMessageHistory, from @mnemo-dev/client/langchain, keeps a chat's messages as
// a mnemo session; it is re-exported here.
import {
  BaseStore,
  type GetOperation,
  type Item,
  type ListNamespacesOperation,
  type Operation,
  type OperationResults,
  type PutOperation,
  type SearchOperation,
} from "@langchain/langgraph";
import { NotFoundError, type Memory, type Mnemo } from "./index.js";

export { MnemoChatMessageHistory } from "./langchain.js";

type SearchItem = Item & { score?: number };

const scheme = "langgraph://";

/** seg escapes a namespace label or key as one segment of a mnemo key. */
function seg(s: string): string {
  const e = encodeURIComponent(s);
  return e === "." || e === ".." ? e.replaceAll(".", "%2E") : e;
}

function keyOf(namespace: string[], key: string): string {
  return scheme + [...namespace, key].map(seg).join("/");
}

function prefixOf(namespace: string[]): string {
  return scheme + namespace.map((s) => seg(s) + "/").join("");
}

/** parse returns the namespace and key of a mnemo key, or undefined for another key. */
function parse(mkey: string | undefined): { namespace: string[]; key: string } | undefined {
  if (!mkey?.startsWith(scheme)) return undefined;
  const parts = mkey.slice(scheme.length).split("/").map(decodeURIComponent);
  const key = parts.pop();
  return key === undefined ? undefined : { namespace: parts, key };
}

function itemOf(m: Memory): Item | undefined {
  const at = parse(m.key);
  if (!at) return undefined;
  return {
    namespace: at.namespace,
    key: at.key,
    value: (m.data ?? {}) as Record<string, unknown>,
    createdAt: new Date(m.created_at),
    updatedAt: new Date(m.updated_at),
  };
}

/** textOf is what recall indexes of a value: the named fields, or all of it as JSON. */
function textOf(value: Record<string, unknown>, fields: string[] | undefined): string {
  if (!fields || fields.length === 0 || fields.includes("$")) return JSON.stringify(value);
  return fields
    .map((f) => value[f])
    .filter((v) => v !== undefined)
    .map((v) => (typeof v === "string" ? v : JSON.stringify(v)))
    .join("\n");
}

function matches(value: Record<string, unknown>, filter: Record<string, unknown> | undefined): boolean {
  return Object.entries(filter ?? {}).every(([k, v]) => JSON.stringify(value[k]) === JSON.stringify(v));
}

export class MnemoStore extends BaseStore {
  /**
   * fields are the value's fields recall indexes (default: the whole value
   * as JSON); a put's index option overrides them for that item.
   */
  constructor(
    private readonly mnemo: Mnemo,
    private readonly opts: { fields?: string[] } = {},
  ) {
    super();
  }

  async batch<Op extends Operation[]>(operations: Op): Promise<OperationResults<Op>> {
    const out: unknown[] = [];
    for (const op of operations) {
      if ("value" in op) out.push(await this.doPut(op));
      else if ("namespacePrefix" in op) out.push(await this.doSearch(op));
      else if ("key" in op) out.push(await this.doGet(op));
      else out.push(await this.doListNamespaces(op));
    }
    return out as OperationResults<Op>;
  }

  private async doGet(op: GetOperation): Promise<Item | null> {
    try {
      return itemOf(await this.mnemo.get({ key: keyOf(op.namespace, op.key) })) ?? null;
    } catch (e) {
      if (e instanceof NotFoundError) return null;
      throw e;
    }
  }

  private async doPut(op: PutOperation): Promise<void> {
    const key = keyOf(op.namespace, op.key);
    if (op.value === null) {
      await this.mnemo.forget({ key: [key] });
      return;
    }
    const fields = op.index === false ? undefined : (op.index ?? this.opts.fields);
    await this.mnemo.remember({ key, content: textOf(op.value, fields), data: op.value, tags: ["langgraph"] });
  }

  private async doSearch(op: SearchOperation): Promise<SearchItem[]> {
    const limit = op.limit ?? 10;
    const offset = op.offset ?? 0;
    const key_prefix = prefixOf(op.namespacePrefix);
    let memories: Memory[];
    if (op.query) {
      // Recall ranks; the filter is applied to what it returns.
      const r = await this.mnemo.recall({ query: op.query, key_prefix, limit: Math.min(1000, (offset + limit) * (op.filter ? 4 : 1)) });
      memories = r.results ?? [];
    } else {
      memories = [];
      for (let off: number | null | undefined = 0; off !== undefined && off !== null; ) {
        const page = await this.mnemo.list({ key_prefix, order: "key", limit: 1000, offset: off });
        memories.push(...(page.memories ?? []));
        off = page.has_more && (!op.filter ? memories.length < offset + limit : true) ? page.next_offset : undefined;
      }
    }
    const items = memories
      .map(itemOf)
      .filter((it): it is Item => it !== undefined && matches(it.value, op.filter));
    return items.slice(offset, offset + limit);
  }

  private async doListNamespaces(op: ListNamespacesOperation): Promise<string[][]> {
    const seen = new Map<string, string[]>();
    for (let off: number | null | undefined = 0; off !== undefined && off !== null; ) {
      const page = await this.mnemo.list({ key_prefix: scheme, order: "key", limit: 1000, offset: off });
      for (const m of page.memories ?? []) {
        const at = parse(m.key);
        if (!at) continue;
        let ns = at.namespace;
        if (!(op.matchConditions ?? []).every((c) => matchesCondition(ns, c.matchType, c.path))) continue;
        if (op.maxDepth !== undefined) ns = ns.slice(0, op.maxDepth);
        seen.set(JSON.stringify(ns), ns);
      }
      off = page.has_more ? page.next_offset : undefined;
    }
    return [...seen.values()].slice(op.offset, op.offset + op.limit);
  }
}

function matchesCondition(ns: string[], type: "prefix" | "suffix", path: string[]): boolean {
  if (path.length > ns.length) return false;
  const part = type === "prefix" ? ns.slice(0, path.length) : ns.slice(ns.length - path.length);
  return path.every((p, i) => p === "*" || p === part[i]);
}
