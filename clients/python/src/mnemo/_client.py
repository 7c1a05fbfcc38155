"""mnemo.Client and mnemo.AsyncClient: one method per operation of mnemo's
HTTP API, each taking the request's fields as keyword arguments named as in
the API, and returning the answer's JSON."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any, Awaitable, Callable, Generic, TypeVar, cast
from urllib.parse import quote

import httpx

from ._errors import UnavailableError, error_of

_J = TypeVar("_J")  # what a JSON call returns: a dict, or an awaitable of one
_L = TypeVar("_L")  # what export returns: a list, or an awaitable of one

_RETRY_STATUSES = (429, 503)

# Aliases, since the classes below have methods named list.
_Dicts = list[dict[str, Any]]
_Keys = str | list[str] | None


def _seg(s: str) -> str:
    return quote(s, safe="")


def _json(text: str) -> Any:
    return json.loads(text)


def _lines(text: str) -> _Dicts:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


class _Request:
    """One call, ready to send."""

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


class _API(Generic[_J, _L]):
    """The operations, written once for both clients; _call sends."""

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
        self.sessions: _Sessions[_J] = _Sessions(self)
        self.runs: _Runs[_J] = _Runs(self)
        self.events: _Events[_J] = _Events(self)

    # Subclasses send.
    def _send(self, req: _Request) -> Any:
        raise NotImplementedError

    def _agent(self, fields: dict[str, Any]) -> dict[str, Any]:
        if fields.get("agent_id") is None and self.agent_id is not None:
            fields = {**fields, "agent_id": self.agent_id}
        return fields

    def _call(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
        content: str | None = None,
        content_type: str | None = None,
        parse: Callable[[str], Any] = _json,
    ) -> _J:
        if body is not None:
            body = self._agent(body)
        else:
            query = self._agent(query or {})
        return cast(_J, self._send(_Request(method, path, query, body, content, content_type, parse)))

    def _wait(self, status: int, err: Exception, attempt: int) -> float | None:
        """Seconds to wait before retrying, or None to fail now."""
        if status not in _RETRY_STATUSES or attempt >= self.max_retries:
            return None
        ra = getattr(err, "retry_after", None)
        wait = ra if ra is not None else 0.25 * 2**attempt
        return wait if wait <= self.max_retry_delay else None

    def remember(self, *, content: str | None, **fields: Any) -> _J:
        """Remember one memory (POST /v1/memories). With key= it upserts that key."""
        return self._call("POST", "/v1/memories", body={"content": content, **fields})

    def remember_many(self, *, memories: _Dicts, **fields: Any) -> _J:
        """Remember many memories, all or none (POST /v1/memories/batch)."""
        return self._call("POST", "/v1/memories/batch", body={"memories": memories, **fields})

    def recall(self, *, query: str, **fields: Any) -> _J:
        """The memories that matter for query, recording an access (POST /v1/recall)."""
        return self._call("POST", "/v1/recall", body={"query": query, **fields})

    def surface(self, *, query: str, **fields: Any) -> _J:
        """Recall without recording an access (POST /v1/surface)."""
        return self._call("POST", "/v1/surface", body={"query": query, **fields})

    def get(self, *, id: str | None = None, key: str | None = None, **params: Any) -> _J:
        """A memory by id (GET /v1/memories/{id}) or the live memory of a key (GET /v1/keys)."""
        if (id is None) == (key is None):
            raise ValueError("mnemo: get takes one of id= or key=")
        if id is not None:
            return self._call("GET", f"/v1/memories/{_seg(id)}", query=params)
        return self._call("GET", "/v1/keys", query={"key": key, **params})

    def list(self, **params: Any) -> _J:
        """A page of memories (GET /v1/memories): limit, offset, tags, session_id, order, ..."""
        return self._call("GET", "/v1/memories", query=params)

    def history(self, *, key: str, **params: Any) -> _J:
        """The revisions of a key, oldest first (GET /v1/history)."""
        return self._call("GET", "/v1/history", query={"key": key, **params})

    def forget(self, *, id: str | None = None, key: _Keys = None, all: bool = False, **params: Any) -> _J:
        """Forget a memory by id, some keys, or (all=True, admin scope) every memory of the agent."""
        if sum([id is not None, key is not None, all]) != 1:
            raise ValueError("mnemo: forget takes one of id=, key= or all=True")
        if id is not None:
            return self._call("DELETE", f"/v1/memories/{_seg(id)}", query=params)
        if all:
            return self._call("DELETE", "/v1/memories", query={"all": True, **params})
        return self._call("DELETE", "/v1/memories", query={"key": key, **params})

    def add_messages(self, *, session_id: str, messages: _Dicts, **fields: Any) -> _J:
        """Store a conversation's messages as the session's events (POST /v1/messages)."""
        return self._call("POST", "/v1/messages", body={"session_id": session_id, "messages": messages, **fields})

    def boot(self, **params: Any) -> _J:
        """Warm start: who the agent is and what it should know; text is for a system prompt (GET /v1/boot)."""
        return self._call("GET", "/v1/boot", query=params)

    def snapshot(self, *, trigger: dict[str, Any], **fields: Any) -> _J:
        """The memories a run starts with, within a token limit (POST /v1/snapshot)."""
        return self._call("POST", "/v1/snapshot", body={"trigger": trigger, **fields})

    def read(self, *, token_limit: int, **fields: Any) -> _J:
        """The default read: the memories for a prompt, with no query (POST /v1/read)."""
        return self._call("POST", "/v1/read", body={"token_limit": token_limit, **fields})

    def reflect(self, **fields: Any) -> _J:
        """Run the sleep cycle: decay, tidy, retention (POST /v1/reflect)."""
        return self._call("POST", "/v1/reflect", body=fields)

    def stats(self, **params: Any) -> _J:
        """Count the agent's memories (GET /v1/stats)."""
        return self._call("GET", "/v1/stats", query=params)

    def export(self, **params: Any) -> _L:
        """Every live memory of the agent, oldest first (GET /v1/export, JSON Lines)."""
        req = _Request("GET", "/v1/export", self._agent(params), None, None, None, _lines)
        return cast(_L, self._send(req))

    def import_(self, *, memories: _Dicts | str, **params: Any) -> _J:
        """Read exported memories back into the agent (POST /v1/import); a bad one stores nothing."""
        text = memories if isinstance(memories, str) else "".join(json.dumps(m) + "\n" for m in memories)
        return self._call("POST", "/v1/import", query=params, content=text, content_type="application/x-ndjson")

    def health(self) -> _J:
        """Report that the server is up (GET /healthz)."""
        return cast(_J, self._send(_Request("GET", "/healthz", None, None, None, None, _json)))


class _Sessions(Generic[_J]):
    """Sessions' working memory."""

    def __init__(self, api: _API[_J, Any]) -> None:
        self._api = api

    def list(self, **params: Any) -> _J:
        """The agent's sessions with working memory (GET /v1/sessions)."""
        return self._api._call("GET", "/v1/sessions", query=params)

    def get(self, *, session_id: str, **params: Any) -> _J:
        """A session's working memory (GET /v1/sessions/{session_id})."""
        return self._api._call("GET", f"/v1/sessions/{_seg(session_id)}", query=params)

    def turn(self, *, session_id: str, text: str, **fields: Any) -> _J:
        """Record a message in a session's working memory (POST /v1/sessions/{session_id}/turns)."""
        return self._api._call(
            "POST", f"/v1/sessions/{_seg(session_id)}/turns", body={"text": text, **fields}
        )

    def end(self, *, session_id: str, **params: Any) -> _J:
        """End a session; archive=True keeps its facts as memories (DELETE /v1/sessions/{session_id})."""
        return self._api._call("DELETE", f"/v1/sessions/{_seg(session_id)}", query=params)


class _Runs(Generic[_J]):
    """Runs' short-term memory."""

    def __init__(self, api: _API[_J, Any]) -> None:
        self._api = api

    def open(self, *, trigger: dict[str, Any], **fields: Any) -> _J:
        """Open a run (POST /v1/runs)."""
        return self._api._call("POST", "/v1/runs", body={"trigger": trigger, **fields})

    def list(self, **params: Any) -> _J:
        """The agent's open runs (GET /v1/runs)."""
        return self._api._call("GET", "/v1/runs", query=params)

    def get(self, *, run_id: str, **params: Any) -> _J:
        """Render a run (GET /v1/runs/{run_id})."""
        return self._api._call("GET", f"/v1/runs/{_seg(run_id)}", query=params)

    def call(self, *, run_id: str, name: str, **fields: Any) -> _J:
        """Record a function call and its result (POST /v1/runs/{run_id}/calls)."""
        return self._post(run_id, "calls", {"name": name, **fields})

    def respond(self, *, run_id: str, **fields: Any) -> _J:
        """Record the model's intermediate response (POST /v1/runs/{run_id}/responses)."""
        return self._post(run_id, "responses", fields)

    def instruct(self, *, run_id: str, **fields: Any) -> _J:
        """Inject a temporary instruction (POST /v1/runs/{run_id}/instructions)."""
        return self._post(run_id, "instructions", fields)

    def close(self, *, run_id: str, **params: Any) -> _J:
        """Close a run (DELETE /v1/runs/{run_id})."""
        return self._api._call("DELETE", f"/v1/runs/{_seg(run_id)}", query=params)

    def _post(self, run_id: str, what: str, body: dict[str, Any]) -> _J:
        return self._api._call("POST", f"/v1/runs/{_seg(run_id)}/{what}", body=body)


class _Events(Generic[_J]):
    """The event log."""

    def __init__(self, api: _API[_J, Any]) -> None:
        self._api = api

    def append(self, *, type: str, **fields: Any) -> _J:
        """Append an event (POST /v1/events)."""
        return self._api._call("POST", "/v1/events", body={"type": type, **fields})

    def append_many(self, *, events: _Dicts, **fields: Any) -> _J:
        """Append many events at once (POST /v1/events/batch)."""
        return self._api._call("POST", "/v1/events/batch", body={"events": events, **fields})

    def list(self, **params: Any) -> _J:
        """Events in order, a page at a time (GET /v1/events)."""
        return self._api._call("GET", "/v1/events", query=params)

    def get(self, *, id: str, **params: Any) -> _J:
        """An event by id (GET /v1/events/{id})."""
        return self._api._call("GET", f"/v1/events/{_seg(id)}", query=params)

    def search(self, **fields: Any) -> _J:
        """Events by meaning (POST /v1/events/search)."""
        return self._api._call("POST", "/v1/events/search", body=fields)


def _unavailable(req: _Request, err: Exception) -> UnavailableError:
    e = UnavailableError("unavailable", 0, f"{req.method} {req.path}: {err}")
    e.__cause__ = err
    return e


class Client(_API[dict[str, Any], list[dict[str, Any]]]):
    """A client of one mnemo server for one agent.

    >>> m = mnemo.Client(base_url="http://127.0.0.1:7077", api_key=key, agent_id="support-bot")
    >>> m.remember(content="The user prefers dark mode", key="/user/prefs/theme")
    >>> m.recall(query="what theme?")["results"]
    """

    def __init__(self, base_url: str, *, http: httpx.Client | None = None, **opts: Any) -> None:
        super().__init__(base_url, **opts)
        self._http = http or httpx.Client(timeout=self._timeout)

    def _send(self, req: _Request) -> Any:
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


class AsyncClient(_API[Awaitable[dict[str, Any]], Awaitable[list[dict[str, Any]]]]):
    """The asyncio client: the same methods as Client, awaited.

    >>> async with mnemo.AsyncClient(base_url=url, api_key=key, agent_id="bot") as m:
    ...     await m.remember(content="The user prefers dark mode")
    """

    def __init__(self, base_url: str, *, http: httpx.AsyncClient | None = None, **opts: Any) -> None:
        super().__init__(base_url, **opts)
        self._http = http or httpx.AsyncClient(timeout=self._timeout)

    async def _send(self, req: _Request) -> Any:
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
