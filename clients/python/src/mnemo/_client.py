"""mnemo.Client and mnemo.AsyncClient: one method per operation of mnemo's
HTTP API, each taking the request's fields as keyword arguments named as in
the API, and returning the answer's JSON, typed by the TypedDicts of
mnemo.types (generated from the server's /openapi.json by
scripts/gen_types.py)."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from typing import Any, Awaitable, Callable, Concatenate, Generic, ParamSpec, TypeVar, overload
from urllib.parse import quote

import httpx

from ._errors import UnavailableError, error_of
from .types import (
    BatchWriteResult,
    Boot,
    CallResult,
    Event,
    EventBatchResult,
    EventPage,
    EventSearchResult,
    ExportedMemory,
    ForgetResult,
    Health,
    History,
    ImportResult,
    InstructResult,
    Memory,
    MemoryPage,
    MessagesResult,
    ReadResult,
    RecallResult,
    ReflectReport,
    RespondResult,
    Run,
    RunClosed,
    RunList,
    RunView,
    Session,
    SessionEnd,
    SessionList,
    Snapshot,
    Stats,
    SurfaceResult,
    TurnResult,
    WriteResult,
)

_T = TypeVar("_T")  # what a call answers: a TypedDict of mnemo.types
_P = ParamSpec("_P")  # an operation's parameters
_M = TypeVar("_M", bound="_Mode")  # _Sync for Client, _Async for AsyncClient

_RETRY_STATUSES = (429, 503)

# Aliases, since the classes below have methods named list.
_Dicts = list[dict[str, Any]]
_Keys = str | list[str] | None
_ExportedMemories = list[ExportedMemory]


def _seg(s: str) -> str:
    return quote(s, safe="")


def _json(text: str) -> Any:
    return json.loads(text)


def _lines(text: str) -> _Dicts:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


class _Request(Generic[_T]):
    """One call, ready to send; _T is what its answer parses to."""

    def __init__(
        self,
        method: str,
        path: str,
        query: dict[str, Any] | None,
        body: Any,
        content: str | None,
        content_type: str | None,
        parse: Callable[[str], Any],
    ) -> None:
        self.method, self.path, self.parse = method, path, parse
        self.params: list[tuple[str, str | int | float | bool | None]] = []
        for k, v in (query or {}).items():
            if v is None:
                continue
            for item in v if isinstance(v, (list, tuple)) else [v]:
                self.params.append((k, _qs(item)))
        self.headers = {"accept": "application/json, application/problem+json"}
        self.content: str | None = None
        if content is not None:
            self.content = content
            self.headers["content-type"] = content_type or "application/json"
        elif body is not None:
            self.content = json.dumps(body)
            self.headers["content-type"] = "application/json"


def _qs(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    return str(v)


class _Mode:
    """How a client's calls answer: _Sync or _Async."""


class _Sync(_Mode):
    """Client's: a call returns its answer."""


class _Async(_Mode):
    """AsyncClient's: a call returns an awaitable of its answer."""


class _Part(Generic[_M]):
    """A client, or its sessions, runs or events: what has operations."""

    def _send(self, req: _Request[Any]) -> Any:
        raise NotImplementedError


class _Op(Generic[_P, _T]):
    """An operation, written once for both clients as a method that builds
    its _Request[T]: on a Client (or its parts) it is a method returning T,
    and on an AsyncClient one returning an awaitable of T. The builders take
    self positional-only (self, /): mypy binds the other parameters to _P
    only then."""

    def __init__(self, build: Callable[Concatenate[Any, _P], _Request[_T]]) -> None:
        self._build = build
        functools.update_wrapper(self, build)

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> _Op[_P, _T]: ...

    @overload
    def __get__(self, obj: _Part[_Sync], owner: type[Any]) -> Callable[_P, _T]: ...

    @overload
    def __get__(self, obj: _Part[_Async], owner: type[Any]) -> Callable[_P, Awaitable[_T]]: ...

    def __get__(self, obj: _Part[Any] | None, owner: type[Any]) -> Any:
        if obj is None:
            return self
        part, build = obj, self._build

        @functools.wraps(build)
        def call(*args: Any, **kwargs: Any) -> Any:
            return part._send(build(part, *args, **kwargs))

        return call


class _API(_Part[_M]):
    """The operations, written once for both clients; _send sends."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        agent_id: str | None = None,
        max_retries: int = 3,
        max_retry_delay: float = 10.0,
        timeout: float = 30.0,
    ) -> None:
        if not base_url:
            raise ValueError("mnemo: base_url is required, such as http://127.0.0.1:7077")
        self.base_url = base_url.rstrip("/")
        self.agent_id = agent_id
        self.max_retries = max_retries
        self.max_retry_delay = max_retry_delay
        self._headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._timeout = timeout
        self.sessions: _Sessions[_M] = _Sessions(self)
        self.runs: _Runs[_M] = _Runs(self)
        self.events: _Events[_M] = _Events(self)

    def _agent(self, fields: dict[str, Any]) -> dict[str, Any]:
        if fields.get("agent_id") is None and self.agent_id is not None:
            fields = {**fields, "agent_id": self.agent_id}
        return fields

    def _req(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
        content: str | None = None,
        content_type: str | None = None,
        parse: Callable[[str], Any] = _json,
    ) -> _Request[Any]:
        if body is not None:
            body = self._agent(body)
        else:
            query = self._agent(query or {})
        return _Request(method, path, query, body, content, content_type, parse)

    def _wait(self, status: int, err: Exception, attempt: int) -> float | None:
        """Seconds to wait before retrying, or None to fail now."""
        if status not in _RETRY_STATUSES or attempt >= self.max_retries:
            return None
        ra = getattr(err, "retry_after", None)
        wait = ra if ra is not None else 0.25 * 2**attempt
        return wait if wait <= self.max_retry_delay else None

    @_Op
    def remember(self, /, *, content: str | None, **fields: Any) -> _Request[WriteResult]:
        """Remember one memory (POST /v1/memories). With key= it upserts that key."""
        return self._req("POST", "/v1/memories", body={"content": content, **fields})

    @_Op
    def remember_many(self, /, *, memories: _Dicts, **fields: Any) -> _Request[BatchWriteResult]:
        """Remember many memories, all or none (POST /v1/memories/batch)."""
        return self._req("POST", "/v1/memories/batch", body={"memories": memories, **fields})

    @_Op
    def recall(self, /, *, query: str, **fields: Any) -> _Request[RecallResult]:
        """The memories that matter for query, recording an access (POST /v1/recall)."""
        return self._req("POST", "/v1/recall", body={"query": query, **fields})

    @_Op
    def surface(self, /, *, query: str, **fields: Any) -> _Request[SurfaceResult]:
        """Recall without recording an access (POST /v1/surface)."""
        return self._req("POST", "/v1/surface", body={"query": query, **fields})

    @_Op
    def get(self, /, *, id: str | None = None, key: str | None = None, **params: Any) -> _Request[Memory]:
        """A memory by id (GET /v1/memories/{id}) or the live memory of a key (GET /v1/keys)."""
        if (id is None) == (key is None):
            raise ValueError("mnemo: get takes one of id= or key=")
        if id is not None:
            return self._req("GET", f"/v1/memories/{_seg(id)}", query=params)
        return self._req("GET", "/v1/keys", query={"key": key, **params})

    @_Op
    def list(self, /, **params: Any) -> _Request[MemoryPage]:
        """A page of memories (GET /v1/memories): limit, offset, tags, session_id, order, ..."""
        return self._req("GET", "/v1/memories", query=params)

    @_Op
    def history(self, /, *, key: str, **params: Any) -> _Request[History]:
        """The revisions of a key, oldest first (GET /v1/history)."""
        return self._req("GET", "/v1/history", query={"key": key, **params})

    @_Op
    def forget(self, /, *, id: str | None = None, key: _Keys = None, all: bool = False, **params: Any) -> _Request[ForgetResult]:
        """Forget a memory by id, some keys, or (all=True, admin scope) every memory of the agent."""
        if sum([id is not None, key is not None, all]) != 1:
            raise ValueError("mnemo: forget takes one of id=, key= or all=True")
        if id is not None:
            return self._req("DELETE", f"/v1/memories/{_seg(id)}", query=params)
        if all:
            return self._req("DELETE", "/v1/memories", query={"all": True, **params})
        return self._req("DELETE", "/v1/memories", query={"key": key, **params})

    @_Op
    def add_messages(self, /, *, session_id: str, messages: _Dicts, **fields: Any) -> _Request[MessagesResult]:
        """Store a conversation's messages as the session's events (POST /v1/messages)."""
        return self._req("POST", "/v1/messages", body={"session_id": session_id, "messages": messages, **fields})

    @_Op
    def boot(self, /, **params: Any) -> _Request[Boot]:
        """Warm start: who the agent is and what it should know; text is for a system prompt (GET /v1/boot)."""
        return self._req("GET", "/v1/boot", query=params)

    @_Op
    def snapshot(self, /, *, trigger: dict[str, Any], **fields: Any) -> _Request[Snapshot]:
        """The memories a run starts with, within a token limit (POST /v1/snapshot)."""
        return self._req("POST", "/v1/snapshot", body={"trigger": trigger, **fields})

    @_Op
    def read(self, /, *, token_limit: int, **fields: Any) -> _Request[ReadResult]:
        """The default read: the memories for a prompt, with no query (POST /v1/read)."""
        return self._req("POST", "/v1/read", body={"token_limit": token_limit, **fields})

    @_Op
    def reflect(self, /, **fields: Any) -> _Request[ReflectReport]:
        """Run the sleep cycle: decay, tidy, retention (POST /v1/reflect)."""
        return self._req("POST", "/v1/reflect", body=fields)

    @_Op
    def stats(self, /, **params: Any) -> _Request[Stats]:
        """Count the agent's memories (GET /v1/stats)."""
        return self._req("GET", "/v1/stats", query=params)

    @_Op
    def export(self, /, **params: Any) -> _Request[_ExportedMemories]:
        """Every live memory of the agent, oldest first (GET /v1/export, JSON Lines)."""
        return _Request("GET", "/v1/export", self._agent(params), None, None, None, _lines)

    @_Op
    def import_(self, /, *, memories: _Dicts | str, **params: Any) -> _Request[ImportResult]:
        """Read exported memories back into the agent (POST /v1/import); a bad one stores nothing."""
        text = memories if isinstance(memories, str) else "".join(json.dumps(m) + "\n" for m in memories)
        return self._req("POST", "/v1/import", query=params, content=text, content_type="application/x-ndjson")

    @_Op
    def health(self, /) -> _Request[Health]:
        """Report that the server is up (GET /healthz)."""
        return _Request("GET", "/healthz", None, None, None, None, _json)


class _Sessions(_Part[_M]):
    """Sessions' working memory."""

    def __init__(self, api: _API[_M]) -> None:
        self._api = api

    def _send(self, req: _Request[Any]) -> Any:
        return self._api._send(req)

    @_Op
    def list(self, /, **params: Any) -> _Request[SessionList]:
        """The agent's sessions with working memory (GET /v1/sessions)."""
        return self._api._req("GET", "/v1/sessions", query=params)

    @_Op
    def get(self, /, *, session_id: str, **params: Any) -> _Request[Session]:
        """A session's working memory (GET /v1/sessions/{session_id})."""
        return self._api._req("GET", f"/v1/sessions/{_seg(session_id)}", query=params)

    @_Op
    def turn(self, /, *, session_id: str, text: str, **fields: Any) -> _Request[TurnResult]:
        """Record a message in a session's working memory (POST /v1/sessions/{session_id}/turns)."""
        return self._api._req(
            "POST", f"/v1/sessions/{_seg(session_id)}/turns", body={"text": text, **fields}
        )

    @_Op
    def end(self, /, *, session_id: str, **params: Any) -> _Request[SessionEnd]:
        """End a session; archive=True keeps its facts as memories (DELETE /v1/sessions/{session_id})."""
        return self._api._req("DELETE", f"/v1/sessions/{_seg(session_id)}", query=params)


class _Runs(_Part[_M]):
    """Runs' short-term memory."""

    def __init__(self, api: _API[_M]) -> None:
        self._api = api

    def _send(self, req: _Request[Any]) -> Any:
        return self._api._send(req)

    @_Op
    def open(self, /, *, trigger: dict[str, Any], **fields: Any) -> _Request[Run]:
        """Open a run (POST /v1/runs)."""
        return self._api._req("POST", "/v1/runs", body={"trigger": trigger, **fields})

    @_Op
    def list(self, /, **params: Any) -> _Request[RunList]:
        """The agent's open runs (GET /v1/runs)."""
        return self._api._req("GET", "/v1/runs", query=params)

    @_Op
    def get(self, /, *, run_id: str, **params: Any) -> _Request[RunView]:
        """Render a run (GET /v1/runs/{run_id})."""
        return self._api._req("GET", f"/v1/runs/{_seg(run_id)}", query=params)

    @_Op
    def call(self, /, *, run_id: str, name: str, **fields: Any) -> _Request[CallResult]:
        """Record a function call and its result (POST /v1/runs/{run_id}/calls)."""
        return self._post(run_id, "calls", {"name": name, **fields})

    @_Op
    def respond(self, /, *, run_id: str, **fields: Any) -> _Request[RespondResult]:
        """Record the model's intermediate response (POST /v1/runs/{run_id}/responses)."""
        return self._post(run_id, "responses", fields)

    @_Op
    def instruct(self, /, *, run_id: str, **fields: Any) -> _Request[InstructResult]:
        """Inject a temporary instruction (POST /v1/runs/{run_id}/instructions)."""
        return self._post(run_id, "instructions", fields)

    @_Op
    def close(self, /, *, run_id: str, **params: Any) -> _Request[RunClosed]:
        """Close a run (DELETE /v1/runs/{run_id})."""
        return self._api._req("DELETE", f"/v1/runs/{_seg(run_id)}", query=params)

    def _post(self, run_id: str, what: str, body: dict[str, Any]) -> _Request[Any]:
        return self._api._req("POST", f"/v1/runs/{_seg(run_id)}/{what}", body=body)


class _Events(_Part[_M]):
    """The event log."""

    def __init__(self, api: _API[_M]) -> None:
        self._api = api

    def _send(self, req: _Request[Any]) -> Any:
        return self._api._send(req)

    @_Op
    def append(self, /, *, type: str, **fields: Any) -> _Request[Event]:
        """Append an event (POST /v1/events)."""
        return self._api._req("POST", "/v1/events", body={"type": type, **fields})

    @_Op
    def append_many(self, /, *, events: _Dicts, **fields: Any) -> _Request[EventBatchResult]:
        """Append many events at once (POST /v1/events/batch)."""
        return self._api._req("POST", "/v1/events/batch", body={"events": events, **fields})

    @_Op
    def list(self, /, **params: Any) -> _Request[EventPage]:
        """Events in order, a page at a time (GET /v1/events)."""
        return self._api._req("GET", "/v1/events", query=params)

    @_Op
    def get(self, /, *, id: str, **params: Any) -> _Request[Event]:
        """An event by id (GET /v1/events/{id})."""
        return self._api._req("GET", f"/v1/events/{_seg(id)}", query=params)

    @_Op
    def search(self, /, **fields: Any) -> _Request[EventSearchResult]:
        """Events by meaning (POST /v1/events/search)."""
        return self._api._req("POST", "/v1/events/search", body=fields)


def _unavailable(req: _Request[Any], err: Exception) -> UnavailableError:
    e = UnavailableError("unavailable", 0, f"{req.method} {req.path}: {err}")
    e.__cause__ = err
    return e


class Client(_API[_Sync]):
    """A client of one mnemo server for one agent.

    >>> m = mnemo.Client(base_url="http://127.0.0.1:7077", api_key=key, agent_id="support-bot")
    >>> m.remember(content="The user prefers dark mode", key="/user/prefs/theme")
    >>> m.recall(query="what theme?")["results"]
    """

    def __init__(self, base_url: str, *, http: httpx.Client | None = None, **opts: Any) -> None:
        super().__init__(base_url, **opts)
        self._http = http or httpx.Client(timeout=self._timeout)

    def _send(self, req: _Request[Any]) -> Any:
        attempt = 0
        while True:
            try:
                res = self._http.request(
                    req.method, self.base_url + req.path, params=req.params,
                    headers={**self._headers, **req.headers}, content=req.content,
                )
            except httpx.HTTPError as e:
                raise _unavailable(req, e) from e
            if res.is_success:
                return req.parse(res.text)
            err = error_of(res.status_code, res.text, res.headers.get("retry-after"))
            wait = self._wait(res.status_code, err, attempt)
            if wait is None:
                raise err
            time.sleep(wait)
            attempt += 1

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncClient(_API[_Async]):
    """The asyncio client: the same methods as Client, awaited.

    >>> async with mnemo.AsyncClient(base_url=url, api_key=key, agent_id="bot") as m:
    ...     await m.remember(content="The user prefers dark mode")
    """

    def __init__(self, base_url: str, *, http: httpx.AsyncClient | None = None, **opts: Any) -> None:
        super().__init__(base_url, **opts)
        self._http = http or httpx.AsyncClient(timeout=self._timeout)

    async def _send(self, req: _Request[Any]) -> Any:
        attempt = 0
        while True:
            try:
                res = await self._http.request(
                    req.method, self.base_url + req.path, params=req.params,
                    headers={**self._headers, **req.headers}, content=req.content,
                )
            except httpx.HTTPError as e:
                raise _unavailable(req, e) from e
            if res.is_success:
                return req.parse(res.text)
            err = error_of(res.status_code, res.text, res.headers.get("retry-after"))
            wait = self._wait(res.status_code, err, attempt)
            if wait is None:
                raise err
            await asyncio.sleep(wait)
            attempt += 1

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
