"""What a coding agent waits for: one ``validate`` from the shell (``brickwright tool``) and through the MCP
server (``brickwright mcp``, one warm worker and judge for its life).

The shell form starts a Python process, a sandboxed worker and a judge for every call; the MCP server starts
them once. Measured on the 50-part build of ``benchmarks/sandbox.py`` (bricks on a 6x6 plate).

    python benchmarks/coding_agent_tools.py [--repeat 5]

Prints the median and min/max wall-clock seconds of each form (for MCP: the server's start, its first
validate and the following ones apart).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from sandbox import FIFTY  # noqa: E402

from brickwright.agent.runfolder import init_run_folder  # noqa: E402


def _stats(xs: list[float]) -> str:
    return f"median {statistics.median(xs):.2f} s (min {min(xs):.2f}, max {max(xs):.2f}, n={len(xs)})"


def shell(run: Path, repeat: int) -> list[float]:
    """Seconds per ``python -m brickwright tool validate RUN`` (exit code 0 expected)."""
    out = []
    for _ in range(repeat):
        t0 = time.monotonic()
        r = subprocess.run([sys.executable, "-m", "brickwright", "tool", "validate", str(run)], cwd=ROOT,
                           capture_output=True, text=True)
        out.append(time.monotonic() - t0)
        assert r.returncode == 0, r.stdout + r.stderr
    return out


def mcp(run: Path, repeat: int) -> tuple[float, list[float]]:
    """Seconds to start the server (initialize answered) and per validate call."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    async def go():
        params = StdioServerParameters(command=sys.executable, args=["-m", "brickwright", "mcp", "--run-dir", str(run)],
                                       env=dict(os.environ), cwd=str(ROOT))
        t0 = time.monotonic()
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            start = time.monotonic() - t0
            calls = []
            for _ in range(repeat + 1):
                t1 = time.monotonic()
                res = await s.call_tool("validate", {})
                calls.append(time.monotonic() - t1)
                assert res.content[0].text.startswith("VALIDATE: PASSED"), res.content[0].text
        return start, calls

    return anyio.run(go)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run = init_run_folder(Path(tmp) / "run")
        (run / "build.py").write_text(FIFTY)
        print(f"shell  brickwright tool validate: {_stats(shell(run, args.repeat))}")
        start, calls = mcp(run, args.repeat)
        print(f"mcp    server start {start:.2f} s; first validate {calls[0]:.2f} s; then {_stats(calls[1:])}")


if __name__ == "__main__":
    main()
