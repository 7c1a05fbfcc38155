"""The server scripts/clients-test.sh started for every suite."""

from __future__ import annotations

import os
import uuid

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


@pytest.fixture
def client(server: dict[str, str], agent_id: str):
    with mnemo.Client(base_url=server["url"], api_key=server["key"], agent_id=agent_id) as c:
        yield c
