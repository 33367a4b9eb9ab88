"""A real chat-completions HTTP server on 127.0.0.1 that plays scripted assistant turns (test helper)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable
from pathlib import Path


def tool_turn(*calls: tuple[str, dict], text: str | None = None) -> dict:
    """An assistant turn calling tools: ``tool_turn(("validate", {}), ("finalize", {"summary": "x"}))``."""
    return {"content": text, "tool_calls": [(name, args) for name, args in calls]}


class ScriptedChatServer:
    """Speaks POST /v1/chat/completions (JSON in, JSON out with ``tool_calls`` and ``usage``).

    ``script`` is a list of turns; each is a dict ``{"content", "tool_calls": [(name, args), ...]}`` or a
    callable taking the request body and returning such a dict. When the script is used up the server answers
    with plain text (no tool call). Every request body is kept in ``requests``.
    """

    def __init__(self, script: list[dict | Callable[[dict], dict]], prompt_tokens: int = 1000,
                 completion_tokens: int = 100):
        self.script = list(script)
        self.requests: list[dict] = []
        self.prompt_tokens = prompt_tokens
        self.completion_tokens = completion_tokens
        self._n = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server API
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self.send_error(404, f"no route {self.path}")
                    return
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                payload = server.answer(body)
                data = json.dumps(payload).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.httpd.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()

    def answer(self, body: dict) -> dict:
        self.requests.append(body)
        turn = self.script.pop(0) if self.script else {"content": "I am done.", "tool_calls": []}
        if callable(turn):
            turn = turn(body)
        self._n += 1
        message: dict[str, Any] = {"role": "assistant", "content": turn.get("content")}
        calls = [{"id": f"call_{self._n}_{i}", "type": "function",
                  "function": {"name": name, "arguments": json.dumps(args)}}
                 for i, (name, args) in enumerate(turn.get("tool_calls") or [])]
        if calls:
            message["tool_calls"] = calls
        return {"id": f"chatcmpl-{self._n}", "object": "chat.completion", "created": 1700000000,
                "model": body.get("model", "scripted"),
                "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}],
                "usage": {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                          "total_tokens": self.prompt_tokens + self.completion_tokens}}

    def tool_results(self) -> dict[str, str]:
        """Tool message contents the harness sent back, by tool-call id."""
        out = {}
        for req in self.requests:
            for m in req["messages"]:
                if m.get("role") == "tool":
                    out[m["tool_call_id"]] = m["content"]
        return out

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


_VALIDATOR_OK: str | None | bool = None


def validator_problem() -> str | None:
    """None when bricklayer can build, validate and export a two-brick build; else why not (for skip)."""
    global _VALIDATOR_OK
    if _VALIDATOR_OK is None:
        try:
            import bricklayer as bl

            b = bl.LegoBuild()
            b.add(bl.Element("3001", bl.Color.RED), (0, 0, 0))
            b.add(bl.Element("3001", bl.Color.RED), (0, 0, 3))
            list(b.floating_placements), list(b.colliding_placements), b.num_connected_components
            bl.to_ldraw(b)
            _VALIDATOR_OK = True
        except Exception as exc:  # noqa: BLE001 - reported as the skip reason
            _VALIDATOR_OK = f"bricklayer validator not ready: {type(exc).__name__}: {exc}"
    return None if _VALIDATOR_OK is True else _VALIDATOR_OK


def brickwright_cli(*args: str, cwd, env: dict | None = None) -> "subprocess.CompletedProcess":
    """``python -m brickwright ARGS`` in ``cwd`` with the environment plus ``env``; text output, 300 s limit.
    The checkout these tests are in goes first on ``PYTHONPATH``, so its packages run (not another checkout the
    environment's editable install points at)."""
    import os
    import subprocess
    import sys

    root = str(Path(__file__).resolve().parents[2])
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    return subprocess.run([sys.executable, "-m", "brickwright", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd, env=dict(os.environ, PYTHONPATH=path, **(env or {})))
