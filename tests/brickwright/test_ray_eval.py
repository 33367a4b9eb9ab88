"""``brickwright eval --ray ADDRESS`` (issue 20, "many runs at once"): runs as Ray tasks on a cluster.

The slow test starts a real local Ray cluster (``ray start --head``, 2 CPUs) and runs ``eval`` against it by
address; the per-run results and run folders must equal a serial run's. The error tests run in the default
suite and need no Ray: a missing Ray and an unreachable address each give one line and exit 2.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from scripted_chat import brickwright_cli

REPO = Path(__file__).resolve().parents[2]


def _closed_port() -> int:
    """A local TCP port nothing listens on (bound, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _stderr_lines(r: subprocess.CompletedProcess) -> list[str]:
    return [ln for ln in r.stderr.splitlines() if ln.strip()]


def test_ray_missing_is_one_line_exit_2(tmp_path):
    """Without Ray (``import ray`` fails), --ray names the extra to install; nothing is written."""
    prompts = tmp_path / "p.txt"
    prompts.write_text("tower 1 high\n")
    code = ("import sys; sys.modules['ray'] = None\n"  # makes `import ray` raise ImportError, as when not installed
            "from brickwright.cli import app\n"
            f"sys.argv = ['brickwright', 'eval', {str(prompts)!r}, '--ray', 'auto', '--model', 'm', "
            f"'--base-url', 'http://127.0.0.1:9/v1', '--out', {str(tmp_path / 'ev')!r}]\n"
            "app()\n")
    r = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert _stderr_lines(r) == ["error: --ray needs Ray, which is not installed: "
                                "pip install 'brickwright-toolkit[ray]'"]
    assert not (tmp_path / "ev").exists()


def test_ray_unreachable_address_is_one_line_exit_2(tmp_path):
    """A head-node address nobody listens on fails at once (Ray itself would retry for minutes)."""
    prompts = tmp_path / "p.txt"
    prompts.write_text("tower 1 high\n")
    port = _closed_port()
    r = brickwright_cli("eval", str(prompts), "--ray", f"127.0.0.1:{port}", "--model", "m", "--base-url",
                        "http://127.0.0.1:9/v1", "--out", str(tmp_path / "ev"), cwd=REPO)
    assert r.returncode == 2, r.stderr
    lines = _stderr_lines(r)
    assert len(lines) == 1, lines
    try:
        import ray  # noqa: F401
    except ImportError:
        assert "pip install 'brickwright-toolkit[ray]'" in lines[0]
    else:
        assert lines[0].startswith(f"error: --ray 127.0.0.1:{port}: no Ray cluster reachable there (")
        assert f"ray start --head --port={port}" in lines[0]
    assert not (tmp_path / "ev").exists()
    r = brickwright_cli("eval", str(prompts), "--ray", "auto", "--workers", "2", cwd=REPO)
    assert r.returncode == 2 and _stderr_lines(r) == [
        "error: give --workers or --ray, not both: on Ray the cluster's CPUs set how many runs go at once "
        "(one CPU a run)"]


def _tower_build(n_bricks: int) -> str:
    lines = "".join(f"    b.add(Element('3001', Color.RED), (0, 0, {3 * k}))\n" for k in range(n_bricks))
    return ("from bricklayer import *\nfrom brickwright import TestContext\ndef create_build():\n"
            "    b = LegoBuild()\n" + lines + "    return b\ndef run_tests():\n"
            "    ctx = TestContext(create_build())\n    ctx.check_no_floating()\n    return ctx.report()\n")


def _tower_reply(body: dict) -> dict:
    """Answers by conversation (prompt "tower N ..." -> N stacked bricks), so the order runs arrive in does not
    matter: write_build, validate, finalize, then done."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    text = user if isinstance(user, str) else user[0]["text"]
    n = int(text.split()[1])
    done = sum(1 for m in body["messages"] if m["role"] == "tool")
    calls = [("write_build", {"content": _tower_build(n)}), ("validate", {}), ("finalize", {"summary": "t"})]
    if done >= len(calls):
        return {"content": "done", "tool_calls": []}
    name, args = calls[done]
    return {"content": None, "tool_calls": [(name, args)]}


@pytest.fixture(scope="module")
def ray_cluster():
    """A local Ray cluster (head node, 2 CPUs) started with ``ray start --head --block``; yields its address
    and the environment variables a driver needs (its authentication token).

    Its processes share one process group: teardown stops ``ray start`` (SIGTERM), which ends the others, and
    kills what is left of the group after 10 s. The nodes import this checkout (PYTHONPATH), as a cluster's
    nodes have the driver's toolkit installed.
    """
    pytest.importorskip("ray", reason="the ray extra is not installed: pip install 'brickwright-toolkit[ray]'")
    ray_bin = Path(sys.executable).parent / "ray"
    if not ray_bin.is_file():
        pytest.skip(f"no `ray` command beside {sys.executable}")
    temp = tempfile.mkdtemp(prefix="bwray-")  # short: Ray's socket paths live under it (108-character limit)
    port = _closed_port()
    # token authentication with a token of this cluster's own (not ~/.ray/auth_token): the driver must pass it
    token = Path(temp) / "auth_token"
    token.write_text(secrets.token_hex(32))
    auth = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
               BRICKWRIGHT_WORKER_WARMUP="0", RAY_USAGE_STATS_ENABLED="0", **auth)
    proc = subprocess.Popen([str(ray_bin), "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
                             "--node-ip-address=127.0.0.1", f"--temp-dir={temp}", "--include-dashboard=false",
                             "--disable-usage-stats"], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"ray start --head did not listen on port {port} (exit {proc.poll()})")
                time.sleep(0.5)
        yield f"127.0.0.1:{port}", auth
    finally:
        proc.terminate()  # `ray start --block` stops the cluster's processes on SIGTERM (about 6 s)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        end = time.monotonic() + 10
        while time.monotonic() < end:  # then whatever of its process group is left
            try:
                os.killpg(proc.pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.2)
        else:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        proc.wait(timeout=10)
        shutil.rmtree(temp, ignore_errors=True)


def _rows(out: Path) -> list[dict]:
    """metrics.json rows without the wall time, run folders relative to ``out``."""
    rows = json.loads((out / "metrics.json").read_text())["runs"]
    return [{**{k: v for k, v in r.items() if k != "seconds"},
             "run_dir": Path(r["run_dir"]).relative_to(out).as_posix()} for r in rows]


def _files(run_dir: Path) -> set[str]:
    return {p.relative_to(run_dir).as_posix() for p in run_dir.rglob("*") if p.is_file()}


@pytest.mark.slow
def test_eval_on_a_ray_cluster_equals_the_serial_run(ray_cluster, chat_server, tmp_path, needs_validator):
    prompts = tmp_path / "prompts.txt"
    prompts.write_text("tower 1 high\ntower 2 high\ntower 3 high\n")
    outs = {}
    address, auth = ray_cluster
    for how, extra in (("serial", []), ("ray", ["--ray", address])):
        server = chat_server([_tower_reply] * 30)
        outs[how] = tmp_path / how
        r = brickwright_cli("eval", str(prompts), "--model", "gpt-4o", "--base-url", server.base_url, "--api-key",
                            "k", "--out", str(outs[how]), "--max-calls", "5", *extra, cwd=REPO, env=auth)
        assert r.returncode == 0, r.stderr
        assert len(server.requests) == 3 * 3  # 3 runs x 3 tool turns (finalize ends a run)
        # progress: every run's events, prefixed "run i of N", on standard error
        for i in (1, 2, 3):
            assert f"run {i} of 3 | turn 1 | write_build" in r.stderr
            assert re.search(rf"^run {i} of 3 \| turn 3 \| done \| checks 3/3 .* finalized after a passing validate$",
                             r.stderr, re.M)
    serial, on_ray = _rows(outs["serial"]), _rows(outs["ray"])
    assert on_ray == serial
    assert [(r["parts"], r["finalized"], r["valid"], r["tool_calls"], r["validate_calls"]) for r in serial] == \
        [(1, True, True, 3, 1), (2, True, True, 3, 1), (3, True, True, 3, 1)]
    # the run folders came back to the driver whole: same files, same build and model, paths naming this machine's
    # folder, nothing of the node's temporary folder, no half-written folder left
    for row in serial:
        s_dir, r_dir = outs["serial"] / row["run_dir"], outs["ray"] / row["run_dir"]
        assert _files(r_dir) == _files(s_dir) and "build.py" in _files(r_dir) and "model.ldr" in _files(r_dir)
        for name in ("build.py", "model.ldr", "snapshots/validate-001/report.txt"):
            assert (r_dir / name).read_bytes() == (s_dir / name).read_bytes(), name
        s_res, r_res = (json.loads((d / "result.json").read_text()) for d in (s_dir, r_dir))
        assert r_res["run_dir"] == str(r_dir) and r_res["ldr_path"] == str(r_dir / "model.ldr")
        drop = ("seconds", "run_dir", "build_path", "transcript_path", "ldr_path")
        assert {k: v for k, v in r_res.items() if k not in drop} == {k: v for k, v in s_res.items() if k not in drop}
        assert not any("brickwright-ray-" in p.read_text(errors="replace") for p in r_dir.rglob("*") if p.is_file())
    assert sorted(p.name for p in outs["ray"].iterdir()) == sorted(p.name for p in outs["serial"].iterdir())


def test_run_folder_travels_whole_and_lands_atomically(tmp_path):
    """What a Ray task sends back (pack_run_folder) and how the driver writes it (write_run_folder); no Ray needed.

    The node's folder path becomes the driver's in text files (JSON-escaped in .json/.jsonl), binary files and
    empty folders come through unchanged, symbolic links stay behind, and an existing folder (--force) is
    replaced whole."""
    from brickwright.agent.cluster import pack_run_folder, write_run_folder
    from brickwright.agent.errors import RayClusterError

    node = tmp_path / "node" / "run_001-a"
    (node / "work").mkdir(parents=True)
    (node / "renders").mkdir()
    (node / "renders" / "iso.png").write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)))
    (node / "result.json").write_text(json.dumps({"run_dir": str(node), "ldr_path": str(node / "model.ldr")}))
    (node / "report.txt").write_text(f"model written to {node}/model.ldr\n")
    (node / "work" / "leak").symlink_to("/etc/hostname")
    driver = tmp_path / 'driver "dir" \u00e9' / "run_001-a"  # quotes and a non-ASCII letter: escaped in JSON
    files, folders = pack_run_folder(node, str(node), str(driver))
    assert sorted(files) == ["renders/iso.png", "report.txt", "result.json"]
    assert sorted(folders) == ["renders", "work"]
    assert files["renders/iso.png"] == (node / "renders" / "iso.png").read_bytes()
    assert json.loads(files["result.json"]) == {"run_dir": str(driver), "ldr_path": str(driver / "model.ldr")}
    assert files["report.txt"].decode() == f"model written to {driver}/model.ldr\n"

    driver.mkdir(parents=True)
    (driver / "stale.txt").write_text("from an earlier eval")
    write_run_folder(driver, files, folders)
    assert sorted(p.relative_to(driver).as_posix() for p in driver.rglob("*")) == \
        ["renders", "renders/iso.png", "report.txt", "result.json", "work"]
    assert sorted(p.name for p in driver.parent.iterdir()) == ["run_001-a"]  # no hidden folder left
    with pytest.raises(RayClusterError, match=r"'\.\./escape\.txt'.*refusing to write outside it"):
        write_run_folder(driver, {"../escape.txt": b"x"}, [])
    assert not (driver.parent / "escape.txt").exists() and (driver / "result.json").is_file()
    assert sorted(p.name for p in driver.parent.iterdir()) == ["run_001-a"]
