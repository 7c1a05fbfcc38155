"""scripts/gen_types.py on a small document of its own: the schema features
mnemo's document has today (required and optional keys, nesting, arrays,
nullable types, additionalProperties, a key that is a keyword) and those it
may grow (enums, $ref to a component). No server needed."""

from __future__ import annotations

import importlib.util
import pathlib
import typing
from typing import Any

_SCRIPT = pathlib.Path(__file__).resolve().parent.parent / "scripts" / "gen_types.py"


def _gen() -> Any:
    spec = importlib.util.spec_from_file_location("gen_types", _SCRIPT)
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_DOC: dict[str, Any] = {
    "openapi": "3.1.0",
    "components": {
        "schemas": {
            "Problem": {
                "type": "object",
                "properties": {"code": {"type": "string"}, "detail": {"type": "string"}},
                "required": ["code"],
                "additionalProperties": False,
            }
        }
    },
    "paths": {
        "/v1/things/{id}": {
            "get": {
                "operationId": "getThing",
                "summary": "Get a thing",
                "responses": {
                    "200": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "properties": {
                                        "id": {"type": "string"},
                                        "kind": {"type": "string", "enum": ["a", "b"]},
                                        "note": {"type": ["null", "string"]},
                                        "from": {"type": "string"},
                                        "tags": {"type": ["null", "array"], "items": {"type": "string"}},
                                        "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
                                        "data": True,
                                        "parts": {
                                            "type": "array",
                                            "items": {
                                                "type": "object",
                                                "properties": {"n": {"type": "integer"}},
                                                "required": ["n"],
                                                "additionalProperties": False,
                                            },
                                        },
                                        "problem": {"$ref": "#/components/schemas/Problem"},
                                    },
                                    "required": ["id", "kind", "from"],
                                    "additionalProperties": False,
                                }
                            }
                        }
                    },
                    "4XX": {"$ref": "#/components/responses/Problem"},
                },
            }
        }
    },
}


def test_gen_types_renders_a_document() -> None:
    gen = _gen()
    gen.NAMES = [("getThing", "answer", "Thing")]
    src = gen.Gen(_DOC).run()
    ns: dict[str, Any] = {}
    exec(compile(src, "types.py", "exec"), ns)

    thing = ns["Thing"]
    assert thing.__required_keys__ == {"id", "kind", "from"}
    assert thing.__optional_keys__ == {"note", "tags", "counts", "data", "parts", "problem"}
    assert ns["GetThingAnswer"] is thing, "every operation's answer has its operationId's name"
    assert ns["Problem"].__required_keys__ == {"code"} and ns["Problem"].__optional_keys__ == {"detail"}
    assert ns["ThingPart"].__required_keys__ == {"n"}, "an array's items are named for one of them"

    hints = typing.get_type_hints(thing, globalns=ns)
    assert hints["kind"] == typing.Literal["a", "b"]
    assert hints["note"] == str | None
    assert hints["from"] is str
    assert hints["tags"] == list[str] | None
    assert hints["counts"] == dict[str, int]
    assert hints["data"] is Any
    assert hints["parts"] == list[ns["ThingPart"]]
    assert hints["problem"] is ns["Problem"]


def test_gen_types_names_must_exist() -> None:
    gen = _gen()
    gen.NAMES = [("noSuchOperation", "answer", "Nothing")]
    try:
        gen.Gen(_DOC).run()
    except SystemExit as e:
        assert "noSuchOperation" in str(e)
    else:
        raise AssertionError("an operation of NAMES missing from the document must fail the generator")
