"""The sandboxed worker: limits, crash recovery, output truncation, error reports and warm speed."""

from __future__ import annotations

import time

import pytest

from brickwright.agent import Worker

from scripted_chat import validator_problem


@pytest.fixture(scope="module")
def w():
    with Worker(time_limit=3, memory_limit=2 * 1024**3, output_limit=1000) as wk:
        wk.info  # wait for the cold start here, not in the first test's timing
        yield wk


def validate(wk: Worker, source: str, tmp_path):
    return wk.call("validate", source=source, build_path=str(tmp_path / "build.py"), cwd=str(tmp_path / "work"))


def test_memory_error_reported_and_worker_recovers(w, tmp_path):
    r = validate(w, "def create_build():\n    return bytearray(3 * 1024**3)\n", tmp_path)
    assert r.limit == "memory" and r.data["passed"] is False
    assert r.data["error"]["text"].startswith("MemoryError")
    assert w.call("ping").data["passed"] is True


def test_hard_crash_reported(w, tmp_path):
    r = validate(w, "import os\nos._exit(7)\n", tmp_path)
    assert not r.ok and r.limit == "crash"
    assert "crashed (exit code 7)" in r.data["error"]["text"]
    assert w.call("ping").ok


def test_time_limit(w, tmp_path):
    w.call("ping", cwd=str(tmp_path))  # a sandbox for this folder, started before the clock runs
    w.info  # a restart after an earlier test's crash must not count
    t0 = time.monotonic()
    r = w.call("validate", source="while True:\n    pass\n", build_path=str(tmp_path / "build.py"),
               cwd=str(tmp_path), time_limit=1.0)
    assert not r.ok and r.limit == "time"
    assert 1.0 <= time.monotonic() - t0 < 2.5
    assert "ran longer than 1 s" in r.data["error"]["text"]


def test_output_truncated(w, tmp_path):
    r = validate(w, "print('x' * 50_000)\ndef create_build():\n    return None\n", tmp_path)
    out = r.data["output"]
    assert out.startswith("x" * 1000) and "x" * 1001 not in out
    assert "49001 more characters not shown" in out  # 50_000 x + newline, 1000 kept


def test_fd_level_output_does_not_break_protocol(w, tmp_path):
    r = validate(w, "import os\nos.write(1, b'garbage\\n' * 1000)\ndef create_build():\n    return None\n", tmp_path)
    assert r.ok and r.data["error"]["text"].startswith("create_build() returned NoneType")


def test_runtime_error_line_and_attribute_hint(w, tmp_path):
    src = "class B:\n    def add(self):\n        pass\n\n\ndef create_build():\n    b = B()\n    b.ad()\n    return b\n"
    r = validate(w, src, tmp_path)
    err = r.data["error"]
    assert (err["type"], err["line"], err["code"]) == ("AttributeError", 8, "b.ad()")
    assert err["hint"] == "did you mean 'add'?"


def test_cwd_is_the_work_folder(w, tmp_path):
    r = w.call("explore", source="", build_path=str(tmp_path / "build.py"), cwd=str(tmp_path / "work"),
               code="import os\nos.getcwd()")
    assert r.data["output"].splitlines()[-1] == str(tmp_path / "work")


def test_warm_worker_and_judge_validate(tmp_path):
    problem = validator_problem()
    if problem:
        pytest.skip(problem)
    src = ("from bricklayer import *\nfrom brickwright import TestContext\n\n"
           "def create_build():\n    b = LegoBuild()\n    b.add(Element('3001', Color.RED), (0, 0, 0))\n"
           "    b.add(Element('3001', Color.RED), (0, 0, 3))\n    return b\n\n"
           "def run_tests():\n    ctx = TestContext(create_build())\n    ctx.check_no_floating()\n"
           "    return ctx.report()\n")
    from brickwright.agent.judge import Judge
    from brickwright.agent.tools import run_and_judge

    with Worker(warm_up=True) as w, Judge() as judge:
        w.info  # start-up, warm-up included
        judge.judge("1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")  # the judge's start-up
        times = []
        for _ in range(2):
            t0 = time.monotonic()
            data, ldraw = run_and_judge(w, judge, source=src, build_path=tmp_path / "build.py", cwd=tmp_path / "work")
            times.append(time.monotonic() - t0)
            assert data["passed"] is True and data["fixed"]["parts"] == 2 and ldraw.count("3001.dat") == 2
    # speed: benchmarks/sandbox.py (tests are not timed)


def test_validate_file_reports_syntax_error(tmp_path):
    from brickwright import validate_file

    p = tmp_path / "build.py"
    p.write_text("def create_build():\n    return [\n")
    rep = validate_file(p, time_limit=10)
    assert rep["passed"] is False and rep["error"]["line"] == 2
    assert rep["text"].splitlines()[1].startswith("SyntaxError in build.py line 2")


def test_forged_reply_is_not_trusted_and_secrets_are_not_passed(tmp_path, monkeypatch):
    """A fresh review forged a PASSED validate by writing to the reply pipe; and read API keys."""
    from brickwright.agent.worker import Worker

    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret-test")
    forge = (
        "import os\n"
        "def create_build():\n"
        "    for fd in range(3, 12):\n"
        "        try:\n"
        "            os.write(fd, b'{\"bogus\": 1}' + bytes([10]))\n"
        "        except OSError:\n"
        "            pass\n"
        "    raise SystemExit(0)\n"
    )
    with Worker(time_limit=20, warm_up=False) as w:
        r = w.call("validate", source=forge, build_path=str(tmp_path / "build.py"), cwd=str(tmp_path))
        assert not r.ok and "reply was discarded" in r.data["error"]["text"]
        assert "ldraw" not in r.data and not r.data.get("passed")
        r = w.call("explore", source="x = 1\n", build_path=str(tmp_path / "build.py"), cwd=str(tmp_path),
                   code="import os\nprint(os.environ.get('OPENAI_API_KEY'))")
        assert r.ok and "sk-secret-test" not in (r.data.get("output") or "")
