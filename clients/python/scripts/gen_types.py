#!/usr/bin/env python3
"""gen_types.py writes src/mnemo/types.py, the TypedDicts of mnemo's HTTP API,
from a running server's /openapi.json, so the client's types follow the
server: the Python twin of clients/typescript/scripts/gen.mjs.

Usage: python3 scripts/gen_types.py URL [--check]
URL is the server's base, such as http://127.0.0.1:7077 (or the path of a
saved /openapi.json). With --check it writes nothing and exits 1 when
src/mnemo/types.py differs from what the server describes (the drift check of
scripts/clients-test.sh).

Standard library only, on purpose: no OpenAPI generator for Python can be
installed where mnemo is built and tested (PyPI is not reachable and Debian
packages none), and the document's schemas are plain JSON Schema, few
keywords of which matter here.

What it writes, for python 3.10 (so without typing.NotRequired, which is
3.11, and without typing_extensions, which the package does not depend on):
  - a TypedDict for every component schema, and for every operation's JSON
    answer (<OperationId>Answer) and JSON or JSON Lines request body
    (<OperationId>Body), operations in path order; the answers the client
    returns also get the names in NAMES, and the class takes that name;
  - an object's required keys in a TypedDict, its other keys in a total=False
    subclass (class _XRequired(TypedDict) then class X(_XRequired,
    total=False)); a key that is no identifier (such as "from") makes the
    functional form, TypedDict("X", {...});
  - nested objects as TypedDicts of their own, named from where they first
    occur (parent name + key, the key singular for an array's items), and
    one class for every object of the same shape (descriptions ignored);
  - arrays as list[...], enums as Literal[...], "null" among the types as
    `| None`, additionalProperties (without properties) as dict[str, ...],
    an empty or true schema as Any.
"""

from __future__ import annotations

import json
import keyword
import os
import re
import sys
import textwrap
import urllib.request
from typing import Any

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src", "mnemo", "types.py")

# Names of the answers (and bodies) the client's methods return or take, by
# operation: (operationId, "answer" or "body", name). Each class is named for
# the first entry of its shape; later ones of the same shape are aliases.
NAMES = [
    ("getV1MemoriesById", "answer", "Memory"),
    ("postV1Memories", "answer", "WriteResult"),
    ("postV1MemoriesBatch", "answer", "BatchWriteResult"),
    ("postV1Recall", "answer", "RecallResult"),
    ("postV1Surface", "answer", "SurfaceResult"),
    ("getV1Keys", "answer", "KeyMemory"),
    ("getV1Memories", "answer", "MemoryPage"),
    ("getV1History", "answer", "History"),
    ("deleteV1Memories", "answer", "ForgetResult"),
    ("deleteV1MemoriesById", "answer", "ForgetByIdResult"),
    ("postV1Messages", "answer", "MessagesResult"),
    ("getV1Boot", "answer", "Boot"),
    ("postV1Snapshot", "answer", "Snapshot"),
    ("postV1Read", "answer", "ReadResult"),
    ("postV1Reflect", "answer", "ReflectReport"),
    ("getV1Stats", "answer", "Stats"),
    ("postV1Import", "body", "ExportedMemory"),
    ("postV1Import", "answer", "ImportResult"),
    ("getHealthz", "answer", "Health"),
    ("getV1Sessions", "answer", "SessionList"),
    ("getV1SessionsBySessionId", "answer", "Session"),
    ("postV1SessionsBySessionIdTurns", "answer", "TurnResult"),
    ("deleteV1SessionsBySessionId", "answer", "SessionEnd"),
    ("postV1Runs", "answer", "Run"),
    ("getV1Runs", "answer", "RunList"),
    ("getV1RunsByRunId", "answer", "RunView"),
    ("postV1RunsByRunIdCalls", "answer", "CallResult"),
    ("postV1RunsByRunIdResponses", "answer", "RespondResult"),
    ("postV1RunsByRunIdInstructions", "answer", "InstructResult"),
    ("deleteV1RunsByRunId", "answer", "RunClosed"),
    ("postV1Events", "answer", "Event"),
    ("getV1EventsById", "answer", "EventById"),
    ("postV1EventsBatch", "answer", "EventBatchResult"),
    ("getV1Events", "answer", "EventPage"),
    ("postV1EventsSearch", "answer", "EventSearchResult"),
]

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
BODY_TYPES = ("application/json", "application/x-ndjson")


def pascal(s: str) -> str:
    parts = re.split(r"[^0-9A-Za-z]+", s)
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def singular(s: str) -> str:
    """The name of one item of an array called s."""
    if s.endswith("ies"):
        return s[:-3] + "y"
    if s.endswith("sses") or s.endswith("xes"):
        return s[:-2]
    if s.endswith("s") and not s.endswith("ss"):
        return s[:-1]
    return s + "_item"


def types_of(schema: dict[str, Any]) -> tuple[list[str], bool]:
    """The schema's types without "null", and whether null is one."""
    t = schema.get("type")
    ts = [t] if isinstance(t, str) else list(t or [])
    nullable = "null" in ts or None in schema.get("enum", [None]) and "enum" in schema
    return [x for x in ts if x != "null"], nullable


def shape(schema: Any) -> str:
    """The key of an object schema's shape: the schema without descriptions
    and without "null" among its types."""

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("description", "examples", "example", "default")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    s = strip(schema)
    if isinstance(s, dict) and isinstance(s.get("type"), list):
        s["type"] = [t for t in s["type"] if t != "null"]
    return json.dumps(s, sort_keys=True)


class Gen:
    def __init__(self, doc: dict[str, Any]) -> None:
        self.doc = doc
        self.by_shape: dict[str, str] = {}  # shape -> class name
        self.taken: set[str] = set()
        self.blocks: list[str] = []  # class definitions, dependencies first
        self.aliases: list[tuple[str, str, str]] = []  # (name, type, docstring)
        self.docs: dict[str, list[str]] = {}  # class name -> what it is the answer or body of
        self.uses_literal = False
        # shape -> the name of the first answer or body of that shape (NAMES
        # first), which its class takes even where it first occurs nested.
        self.preferred: dict[str, str] = {}

    def fresh(self, name: str) -> str:
        n, i = name, 2
        while n in self.taken or n in self.preferred.values() or keyword.iskeyword(n):
            n, i = f"{name}{i}", i + 1
        self.taken.add(n)
        return n

    def ref(self, r: str) -> str:
        prefix = "#/components/schemas/"
        if not r.startswith(prefix):
            raise SystemExit(f"gen_types: unsupported $ref {r}")
        return pascal(r[len(prefix):])

    def type_of(self, schema: Any, name: str) -> str:
        """The Python type of schema; name is the class name for an object."""
        if schema is True or schema == {} or schema is None:
            return "Any"
        if schema is False:
            return "NoReturn"
        if "$ref" in schema:
            return self.ref(schema["$ref"])
        ts, nullable = types_of(schema)
        if "enum" in schema:
            self.uses_literal = True
            values = [v for v in schema["enum"] if v is not None]
            t = "Literal[" + ", ".join(json.dumps(v) if isinstance(v, str) else repr(v) for v in values) + "]"
            return t + " | None" if nullable else t
        if not ts:
            for k in ("anyOf", "oneOf"):
                if k in schema:
                    alts = [self.type_of(s, f"{name}{i + 1}") for i, s in enumerate(schema[k])]
                    return " | ".join(dict.fromkeys(alts))
            if "properties" in schema:
                ts = ["object"]
            else:
                return "Any"
        alts = [self.one(t, schema, name) for t in ts]
        if nullable:
            alts.append("None")
        return " | ".join(dict.fromkeys(alts))

    def one(self, t: str, schema: dict[str, Any], name: str) -> str:
        if t == "string":
            return "str"
        if t == "integer":
            return "int"
        if t == "number":
            return "float"
        if t == "boolean":
            return "bool"
        if t == "array":
            return f"list[{self.type_of(schema.get('items', True), name)}]"
        if t == "object":
            if schema.get("properties"):
                return self.typed_dict(schema, name)
            extra = schema.get("additionalProperties", True)
            return f"dict[str, {self.type_of(extra, name + 'Value')}]"
        raise SystemExit(f"gen_types: unsupported type {t!r} at {name}")

    def typed_dict(self, schema: dict[str, Any], name: str, doc: str | None = None) -> str:
        key = shape(schema)
        if key in self.by_shape:
            return self.by_shape[key]
        cls = self.preferred.get(key) or self.fresh(name)
        self.taken.add(cls)
        self.by_shape[key] = cls
        required = set(schema.get("required", []))
        fields: list[tuple[str, str, str, bool]] = []  # (key, type, description, required)
        for k, s in schema["properties"].items():
            sub = name + pascal(singular(k) if _is_array(s) else k)
            fields.append((k, self.type_of(s, sub), (s or {}).get("description", "") if isinstance(s, dict) else "", k in required))
        self.blocks.append(self.render(cls, fields, schema))
        return cls

    def render(self, cls: str, fields: list[tuple[str, str, str, bool]], schema: dict[str, Any]) -> str:
        req = [f for f in fields if f[3]]
        opt = [f for f in fields if not f[3]]
        note = ""
        if schema.get("additionalProperties", True) is not False:
            note = "    # The server may send keys beyond these (additionalProperties).\n"
        if any(not f[0].isidentifier() or keyword.iskeyword(f[0]) for f in fields):
            # The functional form: one TypedDict of the required keys, one of
            # the others, and the class of both.
            out = []
            parts = []
            for part, fs, total in (("Required", req, True), ("Optional", opt, False)):
                if not fs:
                    continue
                n = self.fresh(f"_{cls}{part}")
                parts.append(n)
                items = "".join(f"        {json.dumps(k)}: {t},\n" for k, t, _, _ in fs)
                tot = "" if total else "    total=False,\n"
                out.append(f"{n} = TypedDict(\n    {json.dumps(n)},\n    {{\n{items}    }},\n{tot})\n")
            out.append(f"class {cls}({', '.join(parts)}):\n{{doc}}{note}    pass\n")
            return "\n\n".join(out)
        def body(fs: list[tuple[str, str, str, bool]]) -> str:
            return "".join(comment(d) + f"    {k}: {t}\n" for k, t, d, _ in fs) or "    pass\n"

        if req and opt:
            base = self.fresh(f"_{cls}Required")
            return (f"class {base}(TypedDict):\n{body(req)}\n\n"
                    f"class {cls}({base}, total=False):\n{{doc}}{note}{body(opt)}")
        opts = "" if req else ", total=False"
        return f"class {cls}(TypedDict{opts}):\n{{doc}}{note}{body(fields)}"

    def top(self, schema: Any, name: str, what: str) -> str:
        """The type of a whole answer or body: a class (named name if it is
        the first of its shape) or, for anything else, an alias."""
        t = self.type_of(schema, name)
        if t in self.by_shape.values():
            self.docs.setdefault(t, []).append(what)
        if t != name:
            if name in self.taken:
                raise SystemExit(f"gen_types: two types named {name}")
            self.taken.add(name)
            self.aliases.append((name, t, what))
        return t

    def run(self) -> str:
        for n, s in self.doc.get("components", {}).get("schemas", {}).items():
            self.top(s, pascal(n), f"The schema {n} of the API's components.")
        ops: dict[tuple[str, str], tuple[Any, str]] = {}  # (operationId, role) -> (schema, what)
        for path, item in self.doc.get("paths", {}).items():
            for method in METHODS:
                op = item.get(method)
                if not isinstance(op, dict):
                    continue
                oid = op.get("operationId") or pascal(method + " " + path)
                summary = op.get("summary", "").rstrip(".")
                route = f"{method.upper()} {path}"
                body = (op.get("requestBody") or {}).get("content") or {}
                for ct in BODY_TYPES:
                    if ct in body and "schema" in body[ct]:
                        line = " (one JSON line)" if ct.endswith("ndjson") else ""
                        ops[(oid, "body")] = (body[ct]["schema"], f"The request body of {route}{line}: {summary}.")
                        break
                for code in sorted(op.get("responses", {})):
                    if not code.startswith("2"):
                        continue
                    content = op["responses"][code].get("content") or {}
                    if "application/json" in content and "schema" in content["application/json"]:
                        ops[(oid, "answer")] = (content["application/json"]["schema"], f"The answer of {route}: {summary}.")
                        break
        tops: list[tuple[Any, str, str]] = []  # (schema, name, what), NAMES first
        for oid, role, name in NAMES:
            if (oid, role) not in ops:
                raise SystemExit(f"gen_types: NAMES: the document has no {role} of {oid}")
            schema, what = ops[(oid, role)]
            tops.append((schema, name, what))
        for (oid, role), (schema, what) in ops.items():
            tops.append((schema, pascal(oid) + ("Body" if role == "body" else "Answer"), what))
        for schema, name, _ in tops:
            if isinstance(schema, dict) and schema.get("properties"):
                self.preferred.setdefault(shape(schema), name)
        for schema, name, what in tops:
            self.top(schema, name, what)
        return self.write()

    def write(self) -> str:
        out = [HEADER]
        out.append("from typing import Any, " + ("Literal, " if self.uses_literal else "") + "TypedDict\n")
        for b in self.blocks:
            cls = re.findall(r"^class (\w+)", b, re.M)[-1]
            docs = self.docs.get(cls, [])
            out.append("\n\n" + b.replace("{doc}", docstring(docs)))
        if self.aliases:
            out.append("\n\n# Every operation's answer and body by operationId, and the names of NAMES\n"
                       "# that share a class with an earlier one.\n")
            for name, t, what in self.aliases:
                out.append(f"{name} = {t}\n" + (f'"""{what}"""\n' if t not in self.by_shape.values() else ""))
        return "".join(out)


def _is_array(s: Any) -> bool:
    return isinstance(s, dict) and not s.get("properties") and "array" in types_of(s)[0]


def comment(d: str) -> str:
    if not d:
        return ""
    return "".join(f"    # {line}\n" for line in textwrap.wrap(" ".join(d.split()), 92))


def docstring(docs: list[str]) -> str:
    if not docs:
        return ""
    paras = [textwrap.fill(" ".join(d.split()), 92, initial_indent="    ", subsequent_indent="    ")
             for d in dict.fromkeys(docs)]
    text = "\n\n".join(paras)[4:]
    return f'    """{text}\n    """\n\n' if "\n" in text else f'    """{text}"""\n\n'


HEADER = '''# Code generated by scripts/gen_types.py from mnemo's /openapi.json. DO NOT EDIT.
# Regenerate: python3 scripts/gen_types.py http://127.0.0.1:7077 (a server built from this tree).
"""The JSON of mnemo's HTTP API as TypedDicts: what mnemo.Client and
mnemo.AsyncClient return (Memory, WriteResult, RecallResult, ...), and every
operation's answer and request body by operationId (PostV1RecallAnswer,
PostV1RecallBody, ...)."""

from __future__ import annotations

'''


def load(src: str) -> dict[str, Any]:
    if re.match(r"https?://", src):
        url = src.rstrip("/") + "/openapi.json"
        try:
            with urllib.request.urlopen(url, timeout=30) as res:
                doc: dict[str, Any] = json.load(res)
                return doc
        except OSError as e:
            raise SystemExit(f"gen_types: GET {url}: {e}")
    with open(src, encoding="utf-8") as f:
        doc = json.load(f)
        return doc


def main(argv: list[str]) -> int:
    if len(argv) not in (1, 2) or (len(argv) == 2 and argv[1] != "--check"):
        print("usage: python3 scripts/gen_types.py URL [--check]", file=sys.stderr)
        return 2
    out = Gen(load(argv[0])).run()
    if len(argv) == 2:
        try:
            with open(OUT, encoding="utf-8") as f:
                have = f.read()
        except FileNotFoundError:
            have = ""
        if have != out:
            print("gen_types: src/mnemo/types.py is out of date with the server's /openapi.json: "
                  "run `python3 scripts/gen_types.py URL` in clients/python against a server built "
                  "from this tree, and commit it", file=sys.stderr)
            return 1
        print("gen_types: src/mnemo/types.py matches the server's /openapi.json")
        return 0
    with open(OUT, "w", encoding="utf-8") as f:
        f.write(out)
    print(f"gen_types: wrote src/mnemo/types.py ({len(out)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
