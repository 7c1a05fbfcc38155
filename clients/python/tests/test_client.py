from __future__ import annotations

import asyncio
import email.utils
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

import pytest

import mnemo


def test_remember_recall_get_list_forget(client: mnemo.Client) -> None:
    w = client.remember(content="The user prefers dark mode in every editor", key="/user/prefs/theme", tags=["prefs"])
    assert w["key"] == "/user/prefs/theme"
    assert w["agent_id"] == client.agent_id
    assert w["tenant_id"] == "clients", "the tenant comes from the API key"

    r = client.recall(query="which theme does the user like?", limit=3)
    assert r["results"][0]["id"] == w["id"]
    # How well it matched, and the order of the score shown (API-17, API-19).
    assert r["match"] == "strong" and r["match_score"] > 0
    assert r["results"][0]["relevance"] >= r["results"][0]["score"]
    far = client.recall(query="weather on Mars", min_match="weak")
    assert far["match"] == "none" and far["results"] == []
    assert client.surface(query="dark mode")["results"][0]["id"] == w["id"]
    assert client.get(id=w["id"])["content"] == w["content"]
    assert client.get(key="/user/prefs/theme")["id"] == w["id"]
    page = client.list(tags=["prefs"])
    assert page["total"] == 1 and [m["id"] for m in page["memories"]] == [w["id"]]

    assert client.forget(key=["/user/prefs/theme"])["deleted"] == 1
    with pytest.raises(mnemo.NotFoundError) as e:
        client.get(id=w["id"])
    assert e.value.code == "not_found" and e.value.status == 404


def test_key_upsert_last_write_wins(client: mnemo.Client) -> None:
    a = client.remember(content="The deploy day is Thursday afternoon", key="/team/deploy")
    b = client.remember(content="The deploy day moved to Tuesday morning", key="/team/deploy")
    assert a["id"] == b["id"]
    assert "Tuesday" in client.get(key="/team/deploy")["content"]
    assert len(client.history(key="/team/deploy")["revisions"]) == 2


def test_remember_many_all_or_none(client: mnemo.Client) -> None:
    ok = client.remember_many(memories=[{"content": "Alice leads the payments team"}, {"content": "Bob maintains billing"}])
    assert len(ok["ids"]) == 2
    with pytest.raises(mnemo.InvalidInputError) as e:
        client.remember_many(memories=[{"content": "Carol runs the on-call rota"}, {"content": "x", "priority": 9}])
    assert e.value.code == "invalid_input" and e.value.status == 400 and "1" in e.value.detail
    assert client.stats()["memories"] == 2


def test_messages_boot_snapshot_read(client: mnemo.Client) -> None:
    client.remember(content="The user is called Dana and works on the search team", key="/user/name", type="identity")
    ids = client.add_messages(
        session_id="s1",
        messages=[{"role": "user", "content": "I am flying to Lisbon on Friday"}, {"role": "assistant", "content": "Noted: Lisbon, Friday"}],
    )["ids"]
    assert len(ids) == 2
    assert "Dana" in client.boot()["text"]
    snap = client.snapshot(trigger={"type": "user_message", "payload": "where am I flying?"}, token_limit=500)
    assert "Lisbon" in snap["text"]
    assert client.read(token_limit=500)["tokens"] > 0


def test_sessions_and_runs(client: mnemo.Client) -> None:
    assert client.sessions.turn(session_id="chat-1", role="user", text="I want to book a flight to Oslo")["turn_count"] == 1
    assert [s["session_id"] for s in client.sessions.list()["sessions"]] == ["chat-1"]
    client.sessions.end(session_id="chat-1")
    with pytest.raises(mnemo.NotFoundError):
        client.sessions.get(session_id="chat-1")

    run = client.runs.open(trigger={"type": "user_message", "payload": "plan the trip"})
    client.runs.call(run_id=run["run_id"], name="search_flights", input={"to": "OSL"}, output="3 flights")
    assert len(client.runs.get(run_id=run["run_id"])["rounds"]) == 1
    client.runs.close(run_id=run["run_id"])
    assert not client.runs.list()["runs"]


def test_events(client: mnemo.Client) -> None:
    e = client.events.append(type="order.created", source="shop", data={"order": 42})
    assert [x["id"] for x in client.events.list(types=["order.created"])["events"]] == [e["id"]]
    assert client.events.get(id=e["id"])["data"] == {"order": 42}


def test_reflect_export_import(client: mnemo.Client) -> None:
    client.remember(content="The staging database lives in eu-west-1", key="/infra/staging-db")
    assert client.reflect(dry_run=True)["dry_run"] is True
    lines = client.export()
    assert [m["key"] for m in lines] == ["/infra/staging-db"]
    client.forget(key="/infra/staging-db")
    assert client.import_(memories=lines)["imported"] == 1
    assert client.get(key="/infra/staging-db")["content"] == lines[0]["content"]


def test_typed_errors(server: dict[str, str], connect: Callable[..., Any]) -> None:
    with pytest.raises(mnemo.UnauthorizedError) as e1:
        connect(base_url=server["url"], agent_id="nobody").recall(query="x")
    assert e1.value.code == "unauthorized" and e1.value.status == 401

    reader = connect(base_url=server["url"], api_key=server["read_key"], agent_id="reader")
    with pytest.raises(mnemo.ForbiddenError) as e2:
        reader.remember(content="Readers cannot write this memory")
    assert e2.value.code == "forbidden"

    with pytest.raises(mnemo.UnavailableError) as e3:
        connect(base_url="http://127.0.0.1:1", agent_id="x").stats()
    assert e3.value.status == 0

    with pytest.raises(ValueError, match="base_url is required"):
        connect(base_url="")
    with pytest.raises(ValueError, match="one of id= or key="):
        connect(base_url=server["url"]).get()
    with pytest.raises(ValueError, match="one of id=, key= or all=True"):
        connect(base_url=server["url"]).forget()


def test_error_codes_are_the_servers(server: dict[str, str]) -> None:
    """The error classes cover every problem code /openapi.json lists, and no other."""
    import re

    import httpx

    from mnemo._errors import ERROR_CLASSES

    doc = httpx.get(server["url"] + "/openapi.json").json()
    desc = doc["components"]["responses"]["Problem"]["description"]
    listed = re.search(r"code is one of ([a-z_, ]+)\.", desc)
    assert listed, desc
    assert sorted(ERROR_CLASSES) == sorted(listed.group(1).split(", "))
    for code, cls in ERROR_CLASSES.items():
        assert "".join(w.title() for w in code.split("_")) + "Error" == cls.__name__, "named as in TypeScript"
        assert getattr(mnemo, cls.__name__) is cls


def test_time_limit_stretches_with_load(server: dict[str, str], connect: Callable[..., Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' clients wait for an answer as long as the load makes it
    take (QUAL-3): 30 s of quiet-machine time, not of wall time."""
    monkeypatch.setenv("MNEMO_TEST_TIMEOUT_SCALE", "10")
    limit = connect(base_url=server["url"])._timeout
    assert limit >= 300, f"timeout {limit}, want at least 10 × 30 s"


def test_async_client_natively(server: dict[str, str], agent_id: str, time_limit: float) -> None:
    """AsyncClient as it is meant to be used: async with, calls at once."""

    async def main() -> None:
        async with mnemo.AsyncClient(base_url=server["url"], api_key=server["key"], agent_id=agent_id, timeout=time_limit) as m:
            w, _, _ = await asyncio.gather(
                m.remember(content="The user drinks green tea every morning", key="/user/drink"),
                m.remember(content="The user walks the dog at noon", key="/user/dog"),
                m.remember(content="The user reads before sleeping", key="/user/night"),
            )
            r = await m.recall(query="what does the user drink?")
            assert r["results"][0]["id"] == w["id"]
            assert (await m.stats())["memories"] == 3
            await m.forget(key=["/user/dog", "/user/night"])
            assert (await m.sessions.turn(session_id="a", text="hello, I need help with tea")) ["turn_count"] == 1
            assert [x["key"] for x in await m.export()] == ["/user/drink"]
            with pytest.raises(mnemo.InvalidInputError):
                await m.remember(content="")

    asyncio.run(main())


class _Fake:
    """A local HTTP server answering each request with the next of answers."""

    def __init__(self, answers: list[tuple[int, dict[str, str], str]]) -> None:
        self.calls = 0
        fake = self

        class H(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                status, headers, body = answers[min(fake.calls, len(answers) - 1)]
                fake.calls += 1
                self.send_response(status)
                for k, v in {"content-type": "application/problem+json", **headers}.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: object) -> None:
                pass

        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.url = f"http://127.0.0.1:{self.srv.server_address[1]}"
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def __enter__(self) -> _Fake:
        return self

    def __exit__(self, *exc: object) -> None:
        self.srv.shutdown()
        self.srv.server_close()


_LIMITED = (429, {"retry-after": "1"}, '{"type":"x","title":"Too Many Requests","status":429,"code":"rate_limited","detail":"slow down"}')


def test_retry_after_then_success(connect: Callable[..., Any]) -> None:
    with _Fake([_LIMITED, (200, {}, '{"memories": 0}')]) as f:
        t0 = time.monotonic()
        assert connect(base_url=f.url).stats() == {"memories": 0}
        assert f.calls == 2
        assert time.monotonic() - t0 >= 0.9, "it waited for Retry-After"


def test_retries_are_bounded(connect: Callable[..., Any]) -> None:
    with _Fake([(503, {"retry-after": "0"}, '{"code":"unavailable","status":503}')]) as f:
        with pytest.raises(mnemo.UnavailableError):
            connect(base_url=f.url, max_retries=2).stats()
        assert f.calls == 3
    with _Fake([_LIMITED]) as f:
        with pytest.raises(mnemo.RateLimitedError) as e:
            connect(base_url=f.url, max_retry_delay=0.1).stats()
        assert e.value.retry_after == 1 and f.calls == 1


def test_retry_after_http_date(connect: Callable[..., Any]) -> None:
    past = email.utils.formatdate(time.time() - 60, usegmt=True)
    later = email.utils.formatdate(time.time() + 3600, usegmt=True)
    with _Fake([(429, {"retry-after": past}, _LIMITED[2]), (200, {}, '{"memories": 0}')]) as f:
        assert connect(base_url=f.url).stats() == {"memories": 0}
        assert f.calls == 2, "a date in the past: retried at once"
    with _Fake([(429, {"retry-after": later}, _LIMITED[2])]) as f:
        with pytest.raises(mnemo.RateLimitedError) as e:
            connect(base_url=f.url).stats()
        assert e.value.retry_after is not None and 3500 < e.value.retry_after <= 3600
        assert f.calls == 1, "an hour is over the cap: no retry"


def test_not_a_problem_body(connect: Callable[..., Any]) -> None:
    with _Fake([(502, {}, "<html>bad gateway</html>")]) as f:
        with pytest.raises(mnemo.UnavailableError) as e:
            connect(base_url=f.url, max_retries=0).stats()
        assert e.value.status == 502 and "bad gateway" in e.value.detail


def _keys_match(answer: Any, td: Any) -> None:
    """answer has every required key of the TypedDict td, and no key td does not declare."""
    keys = set(answer)
    assert td.__required_keys__ <= keys, f"{td.__name__}: missing {sorted(td.__required_keys__ - keys)}"
    declared = td.__required_keys__ | td.__optional_keys__
    assert keys <= declared, f"{td.__name__}: undeclared {sorted(keys - declared)}"


def test_answers_match_their_typeddicts(client: mnemo.Client) -> None:
    from mnemo import types

    w = client.remember(content="The user prefers window seats on long flights", key="/user/prefs/seat", tags=["travel"])
    _keys_match(w, types.WriteResult)
    _keys_match(w["guard"], types.WriteResultGuard)
    _keys_match(client.get(id=w["id"]), types.Memory)

    r = client.recall(query="which seat does the user like?", explain=True)
    _keys_match(r, types.RecallResult)
    assert r["results"], r
    for hit in r["results"]:
        _keys_match(hit, types.RecallResultResult)
        if hit.get("explain"):
            _keys_match(hit["explain"], types.RecallResultResultExplain)
