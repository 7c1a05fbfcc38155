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


def scale() -> float:
    """How many times slower than a quiet machine this one runs now, by the
    rule of scripts/testwait.mjs: runnable threads per core (the larger of
    the 1- and 5-minute load averages and those runnable at this moment), at
    least 1, times MNEMO_TEST_TIMEOUT_SCALE."""
    try:
        f = open("/proc/loadavg").read().split()
        load = max(float(f[0]), float(f[1]), float(f[3].split("/")[0]) - 1)
    except (OSError, IndexError, ValueError):
        load = max(os.getloadavg()[:2]) if hasattr(os, "getloadavg") else 0.0
    try:
        env = float(os.environ.get("MNEMO_TEST_TIMEOUT_SCALE", ""))
    except ValueError:
        env = 1.0
    return max(1.0, load / (os.cpu_count() or 1)) * (env if env > 0 else 1.0)


def timeout() -> float:
    """The clients' default time limit per attempt (30 s) stretched by the
    slowdown now, so that a test fails when the server never answers, never
    because the machine is busy (QUAL-3)."""
    return 30.0 * scale()


@pytest.fixture
def time_limit() -> float:
    """timeout(), for a test that makes its own client."""
    return timeout()


@pytest.fixture(params=["Client", "AsyncClient"])
def connect(request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """connect(base_url=…, …) returns a client of the test's kind, with a
    time limit that stretches with the load (timeout)."""
    made: list[Any] = []
    loop = asyncio.new_event_loop() if request.param == "AsyncClient" else None

    def make(**opts: Any) -> Any:
        opts.setdefault("timeout", timeout())
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
