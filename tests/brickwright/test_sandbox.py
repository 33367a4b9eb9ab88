"""Hostile model code, through the real tools: each attack is blocked or harmless, and the verdict is the true one.

Every test runs code the way the agent's tools do (ToolBox validate / explore / render on a run folder) or the
way a user does (``brickwright validate build.py``). The floating build used as the payload is judged NOT
valid by ``brickwright validate`` on its LDraw file, so a PASSED verdict would be a forgery.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from brickwright.agent import ToolBox, Worker
from brickwright.agent.judge import Judge
from brickwright.agent.sandbox import MAX_TASKS, sandbox_problem

pytestmark = pytest.mark.skipif(sandbox_problem() is not None, reason=f"no sandbox here: {sandbox_problem()}")

#: A build whose second brick floats 10 plates up: not valid, whatever its code says.
FLOATING = '''
from bricklayer import *
from brickwright.testing import TestContext

def create_build():
    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0))
    b.add(Element("3001", Color.BLUE), (0, 0, 10))
    return b

def run_tests():
    ctx = TestContext(create_build())
    ctx.check("always", True)
    return ctx.report()
'''


@pytest.fixture(scope="module")
def judge():
    with Judge() as j:
        yield j


@pytest.fixture(scope="module")
def sandbox_worker():
    with Worker(time_limit=20, memory_limit=2 * 1024**3) as w:
        yield w


@pytest.fixture
def box(tmp_path, sandbox_worker, judge):
    run = tmp_path / "run"
    run.mkdir()
    b = ToolBox(run, sandbox_worker, judge=judge)
    yield b


@pytest.fixture
def canary(tmp_path):
    """A file beside the run folder that model code must neither read nor change."""
    p = tmp_path / "canary.txt"
    p.write_text("CANARY-1c2d3e")
    return p


def explore(box: ToolBox, code: str,
            build: str = "from bricklayer import LegoBuild\ndef create_build():\n    return LegoBuild()\n") -> str:
    box.write_build(build)
    out = box.run("explore", {"code": code})
    return out.text


def test_the_payload_is_really_not_valid(box):
    box.write_build(FLOATING)
    data, text = box.validate()
    assert data["valid"] is False and data["passed"] is False and data["fixed"]["floating"] == 1
    assert data["tests"]["passed"] is True  # the code's own checks pass: they cannot make it valid


# ------------------------------------------------------------------------------------------- files
def test_canary_outside_the_run_folder_cannot_be_read(box, canary):
    out = explore(box, f"print(open({str(canary)!r}).read())")
    assert "CANARY" not in out and "FileNotFoundError" in out
    out = explore(box, "import os\nprint(sorted(os.listdir('/')))\nprint(os.path.exists('/root'), "
                       "os.path.exists('/home'))")
    assert "'home'" not in out.splitlines()[0]


def test_canary_cannot_be_written_or_deleted(box, canary):
    """Writes outside the work folder fail, or (under /tmp) land in the sandbox's private, throw-away /tmp."""
    home = Path.home() / ".brickwright-test-canary"
    home.write_text("CANARY-home")
    try:
        for target in (canary, home):
            explore(box, f"import os\ntry:\n    open({str(target)!r}, 'w').write('x')\nexcept OSError as e:\n"
                         f"    print('write', type(e).__name__)\ntry:\n    os.remove({str(target)!r})\n"
                         f"except OSError as e:\n    print('delete', type(e).__name__)\n")
        assert canary.read_text() == "CANARY-1c2d3e" and home.read_text() == "CANARY-home"
        out = explore(box, f"open({str(home)!r}, 'w')")
        assert "Error" in out  # the home folder does not exist inside
    finally:
        home.unlink()


def test_library_cache_and_packages_are_read_only(box):
    from ldraw_data.library import cache_dir, data_dir

    import brickwright

    targets = [cache_dir() / "poison.bin", data_dir() / "poison.bin",
               Path(brickwright.__file__).parent / "poison.py", Path(sys.prefix) / "poison.pth"]
    code = "ok = []\n" + "".join(
        f"try:\n    open({str(t)!r}, 'w').write('x')\n    ok.append({str(t)!r})\nexcept OSError:\n    pass\n"
        for t in targets) + "print('WROTE', ok)"
    out = explore(box, code)
    assert "WROTE []" in out
    assert not any(t.exists() for t in targets)


def test_work_folder_is_writable(box):
    out = explore(box, "open('note.txt', 'w').write('hi')\nimport os\nprint(os.getcwd())")
    assert (box.run_dir / "work" / "note.txt").read_text() == "hi"
    assert out.strip() == str(box.run_dir / "work")


# ------------------------------------------------------------------------------------------- secrets
def test_parent_proc_environ_cmdline_and_secret_variables(tmp_path, monkeypatch, judge):
    """A fresh worker started while the harness holds secrets in its environment and command line."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-SECRET-42")
    monkeypatch.setenv("SOME_PLAIN_VARIABLE", "sk-test-SECRET-43")
    code = ("import os, glob\nfound = []\n"
            "for f in glob.glob('/proc/*/environ') + glob.glob('/proc/*/cmdline') + ['/proc/self/environ']:\n"
            "    try:\n        data = open(f, 'rb').read()\n    except OSError:\n        continue\n"
            "    if b'SECRET' in data:\n        found.append(f)\n"
            "print('FOUND', found, os.environ.get('OPENAI_API_KEY'), os.environ.get('SOME_PLAIN_VARIABLE'))\n"
            "print('PIDS', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
            "print('PPID', os.getppid())")
    with Worker(time_limit=20, warm_up=False) as w:
        b = ToolBox(tmp_path / "run", w, judge=judge)
        out = explore(b, code)
    assert "FOUND [] None None" in out
    pids = json.loads(out.split("PIDS ")[1].splitlines()[0])
    assert os.getpid() not in pids or max(pids) < 100  # only the sandbox's own processes exist
    assert min(pids) == 1 and len(pids) <= 4


# ------------------------------------------------------------------------------------------- network
def test_no_network_not_even_localhost(box):
    hits = []
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(5)
    srv.settimeout(0.2)
    port = srv.getsockname()[1]
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                c, _ = srv.accept()
                hits.append(c.recv(100))
                c.close()
            except OSError:
                pass

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        out = explore(box, f"import socket\ntry:\n    s = socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
                           f"    s.sendall(b'LEAK')\n    print('CONNECTED')\nexcept OSError as e:\n"
                           f"    print('BLOCKED', type(e).__name__)\n"
                           f"try:\n    socket.getaddrinfo('pypi.org', 443)\n    print('DNS')\nexcept OSError:\n"
                           f"    print('NO DNS')")
    finally:
        stop.set()
        t.join(2)
        srv.close()
    assert "BLOCKED" in out and "CONNECTED" not in out and "NO DNS" in out
    assert hits == []


# ------------------------------------------------------------------------------------------- processes
def test_fork_50_processes_is_capped_and_all_are_gone_after(box):
    code = ("import os, time\nn = 0\nfor i in range(50):\n    try:\n        pid = os.fork()\n"
            "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(600)\n        os._exit(0)\n"
            "    n += 1\nprint('FORKED', n)")
    out = explore(box, code)
    forked = int(out.split("FORKED ")[1].split()[0])
    assert forked < MAX_TASKS
    left = explore(box, "import os\nprint(sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))")
    assert len(json.loads(left.strip().splitlines()[-1])) <= 3  # bwrap's init, the warm worker, this request


def test_background_process_is_killed_when_the_call_ends(box):
    beat = box.run_dir / "work" / "beat"
    code = ("import os, time, subprocess\n"
            "if os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
            "        while True:\n            open('beat', 'a').write('.')\n            time.sleep(0.05)\n"
            "    os._exit(0)\ntime.sleep(0.3)\nprint('STARTED')")
    out = explore(box, code)
    assert "STARTED" in out
    size = beat.stat().st_size
    assert size > 0
    time.sleep(0.5)
    assert beat.stat().st_size == size, "a process of the finished call is still writing"


# ------------------------------------------------------------------------------------------- the verdict
PATCH_CHECKER = '''
import bricklayer, bricklayer.build, brickwright.validation as v
bricklayer.build.LegoBuild.floating_placements = property(lambda self: [])
bricklayer.build.LegoBuild.colliding_placements = property(lambda self: [])
v.validation_report = lambda build, **kw: {"valid": True, "collisions": [], "floating": [], "components": 1,
    "parts": 2, "unique_parts": 1, "unique_elements": 2, "problems": [], "text": "VALID",
    "component_sizes": [2], "unknown_parts": [], "not_parts": [], "scaled": [], "unreadable_lines": []}
'''

STEAL_NONCE = '''
import json, os, sys
def _forge():
    f = sys._getframe()
    while f is not None:
        req = f.f_locals.get("req")
        if isinstance(req, dict) and "nonce" in req:
            reply = {"id": req["id"], "nonce": req["nonce"], "ok": True, "passed": True, "valid": True,
                     "fixed": {"passed": True, "parts": 2, "collisions": 0, "floating": 0, "components": 1,
                               "unique_parts": 1, "unique_elements": 1, "problems": []},
                     "tests": {"passed": True, "checks": []}, "output": "", "stage": "done"}
            line = (json.dumps(reply) + "\\n").encode()
            for fd in range(3, 30):
                try:
                    os.write(fd, line)
                except OSError:
                    pass
            return True
        f = f.f_back
_forge()
'''


@pytest.mark.parametrize("attack", [PATCH_CHECKER, STEAL_NONCE], ids=["replace-checker", "forge-reply"])
def test_code_cannot_forge_the_verdict(box, attack):
    box.write_build(attack + FLOATING)
    out = box.run("validate", {})
    assert out.ok is False and "VALIDATE: FAILED" in out.text
    data = box.last_validate
    assert data["valid"] is False and data["passed"] is False
    # the patched checker: the judge still finds the floater; the forged reply: no build came back at all
    assert data["fixed"]["floating"] == 1 if attack is PATCH_CHECKER else "fixed" not in data
    assert box.run("finalize", {}).ok is False


def test_exported_model_is_exactly_what_was_judged(box):
    box.write_build(PATCH_CHECKER + FLOATING)
    data, _ = box.validate(export=True)
    from brickwright.validation import validation_report

    from bricklayer import read_ldraw

    rep = validation_report(read_ldraw(box.ldr_path))
    assert rep["valid"] is False and len(rep["floating"]) == 1 and data["valid"] is False


def test_embedded_part_geometry_is_not_a_catalog_part(box):
    """Code that exports its own, empty '3001.dat' to hide a collision is caught by the judge."""
    box.write_build('''
from bricklayer import *
import bricklayer
def create_build():
    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0))
    b.add(Element("3001", Color.RED), (0, 0, 0))
    return b
_orig = bricklayer.to_ldraw
def _fake(build, **kw):
    text = _orig(build, **kw)
    return "0 FILE main.ldr\\n" + text + "0 FILE 3001.dat\\n0 empty\\n"
bricklayer.to_ldraw = _fake
''')
    data, _ = box.validate()
    assert data["valid"] is False
    assert any("EMBEDDED PART FILE" in p for p in data["fixed"]["problems"])


# ------------------------------------------------------------------------------------------- limits
def test_allocating_10_gb_is_stopped(box):
    box.write_build("def create_build():\n    x = bytearray(10 * 1024**3)\n    return x\n")
    out = box.run("validate", {})
    assert out.ok is False and "MemoryError" in out.text
    assert "ping" and box.worker.call("ping").ok


def test_endless_loop_is_stopped_and_the_worker_stays_warm(box):
    pid = box.worker.info["pid"]
    t0 = time.monotonic()
    res = box.worker.call("explore", **box.worker_args(), code="while True:\n    pass", time_limit=1.0)
    assert res.limit == "time" and time.monotonic() - t0 < 10
    assert box.worker.call("ping").ok and box.worker.info["pid"] == pid  # no cold restart was needed


def test_a_build_stopped_by_sigstop_is_reported_as_stopped_not_as_an_endless_loop(box):
    """Break-it s25 F15: the request process is in state T at the time limit; an endless loop still gets the
    endless-loop hint."""
    code = "import os, signal\nos.kill(os.getpid(), signal.SIGSTOP)"
    res = box.worker.call("explore", **box.worker_args(), code=code, time_limit=1.0)
    assert res.limit == "time"
    assert res.data["error"]["text"].startswith("Time limit: the code's process was stopped (SIGSTOP or SIGTSTP) "
                                                "and never resumed, so it did not finish within 1 s")
    res = box.worker.call("explore", **box.worker_args(), code="while True:\n    pass", time_limit=1.0)
    assert "endless loop" in res.data["error"]["text"] and "SIGSTOP" not in res.data["error"]["text"]


def test_printing_10_mb_is_truncated(box):
    out = explore(box, "print('y' * 10_000_000)")
    assert len(out) < 30_000 and "more characters not shown" in out


def test_render_png_comes_back_as_data(box):
    box.write_build(FLOATING)
    out = box.run("render", {"view": "iso"})
    if not out.ok and "not available" in out.text:
        pytest.skip(out.text)
    assert out.ok and Path(out.image).read_bytes().startswith(b"\x89PNG")
    assert Path(out.image).parent == box.run_dir / "renders"


# ------------------------------------------------------------------------------------------- the CLI
from scripted_chat import brickwright_cli as _cli  # noqa: E402


def test_cli_validate_build_py_cannot_be_forged_or_read_secrets(tmp_path, canary):
    folder = tmp_path / "project"
    folder.mkdir()
    evil = folder / "evil_build.py"
    evil.write_text(PATCH_CHECKER + f'''
import os
if os.path.exists({str(canary)!r}) or os.environ.get("OPENAI_API_KEY"):
    raise RuntimeError("LEAK " + str(os.environ.get("OPENAI_API_KEY")))
''' + FLOATING)
    res = _cli("validate", str(evil), cwd=tmp_path, env={"OPENAI_API_KEY": "sk-cli-SECRET"})
    assert res.returncode == 1, res.stdout + res.stderr
    assert "NOT VALID" in res.stdout and "1 floating" in res.stdout
    assert "LEAK" not in res.stdout + res.stderr and "SECRET" not in res.stdout + res.stderr
    res = _cli("validate", "--json", str(evil), cwd=tmp_path)
    rep = json.loads(res.stdout)
    assert rep["valid"] is False and len(rep["floating"]) == 1
    evil.write_text(STEAL_NONCE + FLOATING)  # a forged reply: refused, exit 1, never VALID
    res = _cli("validate", str(evil), cwd=tmp_path)
    assert res.returncode == 1 and "VALID" not in res.stdout.replace("NOT VALID", "")


def test_cli_validate_build_py_imports_a_module_beside_it(tmp_path):
    (tmp_path / "helpers.py").write_text("COLOR = 4\n")
    (tmp_path / "build.py").write_text("from bricklayer import *\nfrom helpers import COLOR\n"
                                       "def create_build():\n    b = LegoBuild()\n"
                                       "    b.add(Element('3001', COLOR), (0, 0, 0))\n    return b\n")
    res = _cli("validate", "build.py", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "VALID" in res.stdout


# ------------------------------------------------------------------------------------------- whole runs
def _script(build: str) -> list:
    from scripted_chat import tool_turn

    return [tool_turn(("write_build", {"content": build})), tool_turn(("validate", {})),
            tool_turn(("finalize", {"summary": "done"})), tool_turn(("finalize", {"summary": "done"}))]


def test_generate_with_a_patched_validator_is_not_valid(chat_server, tmp_path):
    """The model's code monkeypatches the validator: result.json and the exit code still say NOT valid."""
    server = chat_server(_script(PATCH_CHECKER + FLOATING))
    out = tmp_path / "run"
    res = _cli("generate", "a tower", "--model", "gpt-4o", "--base-url", server.base_url, "--api-key",
               "sk-run-SECRET", "--out", str(out), "--max-calls", "4", cwd=tmp_path)
    assert res.returncode != 0, res.stdout + res.stderr
    result = json.loads((out / "result.json").read_text())
    assert result["valid"] is False and result["passed"] is False and result["finalized"] is False
    assert result["floater_free"] is False
    transcript = (out / "transcript.jsonl").read_text()
    assert "sk-run-SECRET" not in transcript and "SECRET" not in (out / "model.ldr").read_text()
    from bricklayer import read_ldraw
    from brickwright.validation import validation_report

    assert validation_report(read_ldraw(out / "model.ldr"))["valid"] is False


def test_run_folder_is_never_overwritten_without_force(chat_server, tmp_path):
    from brickwright import generate
    from brickwright.agent.errors import RunFolderExistsError

    out = tmp_path / "run"
    out.mkdir()
    (out / "build.py").write_text("# the user's own work\n")
    server = chat_server(_script(FLOATING))
    with pytest.raises(RunFolderExistsError, match="already holds a run"):
        generate("a tower", model="gpt-4o", base_url=server.base_url, api_key="k", out_dir=out, max_calls=3)
    assert (out / "build.py").read_text() == "# the user's own work\n" and not (out / "result.json").exists()
    res = _cli("generate", "a tower", "--model", "gpt-4o", "--base-url", server.base_url, "--api-key", "k",
               "--out", str(out), cwd=tmp_path)
    assert res.returncode == 2 and "--force" in res.stderr and "Traceback" not in res.stderr
    assert (out / "build.py").read_text() == "# the user's own work\n"
    (tmp_path / "prompts.txt").write_text("a tower\n")
    ev = tmp_path / "eval"
    (ev / "run_001-a-tower").mkdir(parents=True)
    res = _cli("eval", str(tmp_path / "prompts.txt"), "--model", "gpt-4o", "--base-url", server.base_url,
               "--api-key", "k", "--out", str(ev), cwd=tmp_path)
    assert res.returncode == 2 and "already holds an evaluation" in res.stderr
    res = generate("a tower", model="gpt-4o", base_url=server.base_url, api_key="k", out_dir=out, max_calls=3,
                   force=True)
    assert res.run_dir == out.resolve() and (out / "result.json").exists()


def test_no_sandbox_is_refused_unless_asked(tmp_path, chat_server):
    """With a bwrap that cannot work, generate refuses in one line; --no-sandbox runs with process limits."""
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    server = chat_server(_script(FLOATING))
    env = {"BRICKWRIGHT_BWRAP": str(fake)}
    res = _cli("generate", "a tower", "--model", "gpt-4o", "--base-url", server.base_url, "--api-key", "k",
               "--out", str(tmp_path / "run"), cwd=tmp_path, env=env)
    assert res.returncode == 2 and "--no-sandbox" in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "run").exists()
    build = tmp_path / "build.py"
    build.write_text(FLOATING)
    res = _cli("validate", str(build), cwd=tmp_path, env=env)
    assert res.returncode == 2 and "--no-sandbox" in res.stderr
    res = _cli("validate", "--no-sandbox", str(build), cwd=tmp_path, env=env)
    assert res.returncode == 1 and "NOT VALID" in res.stdout and "1 floating" in res.stdout


def test_a_huge_reply_is_refused_not_held(box):
    """Code that makes its reply 200 MB (a giant printed or exported text) gets a clear refusal."""
    box.write_build("from bricklayer import LegoBuild\nimport bricklayer\n"
               "bricklayer.to_ldraw = lambda build, **kw: 'x' * (200 * 1024**2)\n"
               "def create_build():\n    return LegoBuild()\n")
    out = box.run("validate", {})
    assert out.ok is False and "over 128 MB" in out.text
    assert box.worker.call("ping").ok


# ------------------------------------------------------------------------------------------- found by review
def test_dev_shm_and_dev_cannot_hold_unbounded_memory(box):
    out = explore(box, "import os\nfor p in ('/dev/big', '/dev/shm/big', '/big'):\n    try:\n"
                       "        with open(p, 'wb') as f:\n            f.write(b'x' * (64 * 1024**2))\n"
                       "        print('WROTE', p)\n    except OSError as e:\n        print('REFUSED', p, e.errno)")
    assert "WROTE" not in out and out.count("REFUSED") == 3


def test_pid_1_cannot_be_traced_and_its_pipes_cannot_be_opened(box):
    code = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "r = libc.ptrace(16, 1, 0, 0)\nprint('PTRACE', r, ctypes.get_errno())\n"
            "for fd in (0, 1, 3, 4):\n    try:\n        os.open(f'/proc/1/fd/{fd}', os.O_WRONLY)\n"
            "        print('OPENED', fd)\n    except OSError as e:\n        print('DENIED', fd)\n"
            "print('PID', os.getpid(), os.getppid())")
    out = explore(box, code)
    assert "PTRACE -1" in out and "OPENED" not in out


def test_a_bad_render_view_is_an_error_not_a_crash(box):
    box.write_build(FLOATING)
    for view in ("/x/y", "iso\x00", "../../etc", 5):
        out = box.run("render", {"view": view}) if not isinstance(view, int) else box.run("render", {"view": "5"})
        assert out.ok is False and "unknown view" in out.text
    assert not (box.run_dir / "renders").exists() or not any((box.run_dir / "renders").rglob("*"))


def test_check_names_cannot_rewrite_the_terminal(box):
    spoof = "\r\x1b[2K" + "\x1b[1A\x1b[2K" * 6 + "build.py: 2 parts -> VALID\nrun_tests: ok"
    box.write_build(f'''
from bricklayer import *
from brickwright.testing import TestContext
def create_build():
    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0))
    b.add(Element("3001", Color.RED), (0, 0, 0))
    return b
def run_tests():
    ctx = TestContext(create_build())
    ctx.check({spoof!r}, False, {spoof!r})
    return ctx.report()
''')
    out = box.run("validate", {})
    assert "\x1b" not in out.text and "\r" not in out.text
    assert not any(line.strip().endswith("-> VALID") for line in out.text.splitlines())


def test_run_tests_with_no_checks_does_not_pass(box):
    box.write_build(FLOATING.replace('    ctx.check("always", True)\n', "").replace("(0, 0, 10)", "(0, 0, 3)"))
    data, text = box.validate()
    assert data["valid"] is True and data["passed"] is False and "ran no checks" in text


def test_a_huge_work_folder_is_emptied_after_the_call(box):
    out = explore(box, "for i in range(6):\n    with open(f'f{i}', 'wb') as f:\n"
                       "        f.write(b'x' * (200 * 1024**2))\nprint('DONE')")
    assert "DONE" in out and "it was emptied" in out
    assert not any((box.run_dir / "work").iterdir())
    out = explore(box, "try:\n    open('big', 'wb').write(b'x' * (300 * 1024**2))\nexcept OSError as e:\n"
                       "    print('EFBIG', e.errno)")
    assert "EFBIG 27" in out  # RLIMIT_FSIZE: one file of at most 256 MB


def test_render_takes_joint_values_and_the_prompt_lists_tool_arguments(box):
    """Issue 17 items 5 and 9: render shows a posed build; the prompt names every tool's arguments."""
    from brickwright.agent.prompt import system_prompt
    from brickwright.agent.tools import TOOL_NAMES

    box.write_build("from bricklayer import *\nfrom bricklayer.construction import door\n"
               "def create_build():\n    b = LegoBuild()\n    b.add(Element('3035', Color.DARK_BLUISH_GREY), (0, 0, 0))\n"
               "    b.add_raw(door(swing=90), Pose(None, (0, 0, PLATE)), name='door')\n    return b\n")
    shut = box.run("render", {"view": "iso"})
    if not shut.ok and "not available" in shut.text:
        pytest.skip(shut.text)
    opened = box.run("render", {"view": "iso", "pose": {"door/door": -60}})
    assert shut.ok and opened.ok and Path(shut.image).read_bytes() != Path(opened.image).read_bytes()
    assert box.run("render", {"pose": {"door/door": "wide"}}).ok is False
    prompt = system_prompt("(api)")
    tools = prompt.split("Tools:\n")[1].split("\n\n")[0]
    assert all(f"- {n}(" in tools for n in TOOL_NAMES)
    assert "pose?: object" in tools and "view?: string" in tools and "code: string" in tools


# ------------------------------------------------------------------------------------------- second review
def test_parts_far_from_the_origin_are_not_valid(box):
    """Collision tests lose their precision at 1e18 LDU: such a placement is reported, never VALID."""
    box.write_build("from bricklayer import *\nfrom brickwright.testing import TestContext\n"
               "def create_build():\n    b = LegoBuild()\n    b.add(Element('3031', Color.GREEN), (0, 0, 0))\n"
               "    for y in (0, 1, 2):\n        b.add(Element('3001', Color.BLUE), (5e16, y, 0))\n    return b\n"
               "def run_tests():\n    ctx = TestContext(create_build())\n    ctx.check('x', True)\n"
               "    return ctx.report()\n")
    data, text = box.validate()
    assert data["valid"] is False and "OUT OF RANGE" in text


def test_escapes_in_submodel_names_do_not_reach_the_report(box):
    esc = "\x1b[1A\x1b[2K"
    box.write_build(f'''
from bricklayer import *
def create_build():
    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0))
    sub = LegoBuild(name={("sub" + esc + "fake -> VALID")!r})
    sub.add(Element("3001", Color.RED), (0, 0, 0))
    b.add_raw(sub, Pose(None, (0, 0, 200)), name={("s" + esc)!r})
    return b
''')
    data, text = box.validate()
    assert data["valid"] is False and "\x1b" not in text and "\x1b" not in "".join(data["fixed"]["problems"])


def test_deeply_nested_json_and_odd_keys_do_not_crash_the_harness(box):
    out = box.run("validate", "[" * 5000 + "]" * 5000)
    assert out.ok is False and "nest too deeply" in out.text
    out = box.run("edit_build", {1: "x"})
    assert out.ok is False


def test_memfd_memory_is_capped(box):
    """memfd pages are not address space (RLIMIT_AS); the sandbox's memory cgroup (as root) counts them."""
    if not box.worker._cgroup or len(box.worker._cgroup.paths) < 2:
        pytest.skip("no memory cgroup can be made here (not root): RLIMIT_AS only, as docs/agent.md says")
    out = explore(box, "import os\nfds = []\nfor i in range(16):\n    fd = os.memfd_create('x')\n"
                       "    os.write(fd, b'x' * (256 * 1024**2))\n    fds.append(fd)\nprint('HELD 4 GB')")
    assert "HELD 4 GB" not in out and "out of memory" in out
    assert "alive" in explore(box, "print('alive')")


def test_deep_trees_in_the_work_folder_are_counted(box):
    code = ("import os\nfor i in range(40):\n    os.mkdir('d' * 200)\n    os.chdir('d' * 200)\n"
            "for i in range(5):\n    with open(f'f{i}', 'wb') as f:\n        f.truncate(250 * 1024**2)\nprint('DEEP')")
    out = explore(box, code)
    assert "DEEP" in out and "it was emptied" in out
    assert not any((box.run_dir / "work").iterdir())


def test_mcp_run_folders_stay_inside_the_served_folder(tmp_path):
    from brickwright.agent.mcp_server import BrickwrightTools  # noqa: F401 - the server's tool object
    from brickwright.agent.runfolder import init_run_folder

    run = init_run_folder(tmp_path / "served")
    victim = tmp_path / "victim"
    (victim / "work").mkdir(parents=True)
    (victim / "work" / "thesis.txt").write_text("mine")
    tools = BrickwrightTools(run)
    try:
        with pytest.raises(Exception, match="outside"):
            tools.init_run(str(victim), None, True)
        with pytest.raises(Exception, match="outside"):
            tools.tool("validate", {}, str(victim))
    finally:
        tools.close() if hasattr(tools, "close") else None
    assert (victim / "work" / "thesis.txt").read_text() == "mine"
