"""Fixtures for the harness tests: a real chat-completions HTTP server on 127.0.0.1 that plays scripted turns,
and a warm build worker shared by a test module."""

from __future__ import annotations

import os
from typing import Any

import pytest

# Workers started by these tests skip the start-up warm-up (it only moves time from the first validate to the
# start); test_worker.py::test_warm_validation_is_fast turns it on explicitly.
os.environ["BRICKWRIGHT_WORKER_WARMUP"] = "0"

from brickwright.agent import Worker
from scripted_chat import ScriptedChatServer, validator_problem


@pytest.fixture
def chat_server():
    """Factory: ``chat_server(script)`` starts a scripted server; all are shut down after the test."""
    servers: list[ScriptedChatServer] = []

    def make(script: list, **kw: Any) -> ScriptedChatServer:
        s = ScriptedChatServer(script, **kw)
        servers.append(s)
        return s

    yield make
    for s in servers:
        s.close()


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests configure providers explicitly; environment settings of the developer must not leak in."""
    for var in ("BRICKWRIGHT_MODEL", "BRICKWRIGHT_BASE_URL", "BRICKWRIGHT_API_KEY", "OPENAI_API_KEY",
                "ANTHROPIC_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture(scope="module")
def worker():
    """A warm worker shared by one test module (30 s limit)."""
    with Worker(time_limit=30) as w:
        yield w


@pytest.fixture
def needs_validator() -> None:
    """Skip the test when bricklayer cannot yet validate a build."""
    problem = validator_problem()
    if problem:
        pytest.skip(problem)
