"""The judge process (started by :class:`~.judge.Judge`): verdicts on LDraw text, no other request.

Protocol as :mod:`._child`: a ``{"ready": true}`` line, then one JSON reply line per request line. The only op
is ``judge`` (``ldraw``, ``source``) answered with ``{"fixed": <judge_ldraw(...)>}``; ``ping`` answers too.
Nothing here imports or executes a build script.
"""

from __future__ import annotations

__all__ = ["main"]

import json
import os
import sys


def main() -> None:
    """Serve judge requests on stdin/stdout until stdin closes."""
    limit = int(os.environ.get("BRICKWRIGHT_WORKER_MEMORY", "0") or 0)
    if limit > 0:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    proto_in = os.fdopen(os.dup(0), "r", encoding="utf-8")
    proto_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)
    import logging

    logging.disable(logging.WARNING)  # import warnings are in the report; stderr is not read
    error = None
    try:
        from .judge import judge_ldraw
    except Exception as exc:  # noqa: BLE001 - reported in the ready line
        error = f"{type(exc).__name__}: {exc}"

    if error is None:  # load the library, a mesh and the validator once, so the first verdict is as fast as later ones
        try:
            judge_ldraw("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
        except Exception:  # noqa: BLE001 - an optimisation; real requests report real problems
            pass

    def send(obj: dict) -> None:
        proto_out.write(json.dumps(obj, default=str) + "\n")
        proto_out.flush()

    send({"ready": True, "bricklayer": error is None, "import_error": error, "pid": os.getpid()})
    for line in proto_in:
        if not line.strip():
            continue
        req = json.loads(line)
        resp: dict
        try:
            if req.get("op") == "ping":
                resp = {"passed": True}
            elif req.get("op") == "judge" and error is None:
                resp = {"fixed": judge_ldraw(req["ldraw"], source=req.get("source") or "build.py",
                                             inventory=req.get("inventory"),
                                             diagnostic=bool(req.get("diagnostic")),
                                             lines=req.get("lines") if isinstance(req.get("lines"), dict) else None)}
            else:
                resp = {"error": {"type": "JudgeError", "text": error or f"unknown op {req.get('op')!r}"}}
        except MemoryError:
            resp = {"memory_limit": True, "error": {"type": "MemoryError", "text": "the judge ran out of memory "
                                                    "on this build (too many parts?)"}}
        except RecursionError:
            resp = {"error": {"type": "RecursionError", "text": "the build's LDraw text nests too deeply"}}
        except Exception as exc:  # noqa: BLE001 - a verdict request always gets an answer
            resp = {"error": {"type": type(exc).__name__, "text": f"{type(exc).__name__}: {exc}"}}
        resp.update(id=req.get("id"), nonce=req.get("nonce"), ok=True, output="")
        send(resp)
    sys.exit(0)


if __name__ == "__main__":
    main()
