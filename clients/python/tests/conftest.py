"""The server scripts/clients-test.sh started for every suite, and clients of
it: each test taking `client` or `connect` runs twice, with mnemo.Client and
with mnemo.AsyncClient (driven to completion by _Blocking), so that both
clients pass every scenario."""

from __future__ import annotations

import asyncio
import inspect
import os
import uuid
from typing import Any, Callable, Iterator

import pytest

import mnemo


def _need(name: str) -> str:
    v = os.environ.get(name)
    if not v:
        pytest.exit(f"{name} is not set: run the tests with scripts/clients-test.sh", returncode=2)
    return v


@pytest.fixture(scope="session")
def server() -> dict[str, str]:
    return {
        "url": _need("MNEMO_URL"),
        "key": _need("MNEMO_TEST_KEY"),
        "read_key": _need("MNEMO_TEST_READ_KEY"),
    }


@pytest.fixture
def agent_id() -> str:
    """A fresh agent per test, so that tests do not meet."""
    return "py-" + uuid.uuid4().hex[:8]


class _Blocking:
    """An AsyncClient (or its sessions, runs, events) whose every method runs
    to completion on loop, so that a test reads the same for both clients."""

    def __init__(self, target: Any, loop: asyncio.AbstractEventLoop) -> None:
        self._target, self._loop = target, loop

    def __getattr__(self, name: str) -> Any:
        v = getattr(self._target, name)
        if name in ("sessions", "runs", "events"):
            return _Blocking(v, self._loop)
        if not callable(v):
            return v

        def call(*args: Any, **kwargs: Any) -> Any:
            r = v(*args, **kwargs)
            return self._loop.run_until_complete(r) if inspect.isawaitable(r) else r

        return call


@pytest.fixture(params=["Client", "AsyncClient"])
def connect(request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """connect(base_url=…, …) returns a client of the test's kind."""
    made: list[Any] = []
    loop = asyncio.new_event_loop() if request.param == "AsyncClient" else None

    def make(**opts: Any) -> Any:
        c = getattr(mnemo, request.param)(**opts)
        made.append(c)
        return c if loop is None else _Blocking(c, loop)

    yield make
    for c in made:
        if loop is None:
            c.close()
        else:
            loop.run_until_complete(c.aclose())
    if loop is not None:
        loop.close()


@pytest.fixture
def client(server: dict[str, str], agent_id: str, connect: Callable[..., Any]) -> Any:
    return connect(base_url=server["url"], api_key=server["key"], agent_id=agent_id)
