"""Leftovers of the break-it round (a new user with only the README tried to break the command line), each run
as that user would: ``python -m brickwright ...`` in a real process, from the repository root.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: Two 2 x 4 bricks (3001), the second stacked on the first (a brick is 24 LDU tall): valid, one component.
TWO_BRICKS = "0 two bricks\r\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\r\n1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\r\n"


def brickwright(*args: str, timeout: float = 120, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "brickwright", *args], cwd=REPO, capture_output=True, text=True,
                          timeout=timeout, **kw)


# ----------------------------------------------------------------------------- UTF-16 / BOM'd LDraw files
def test_utf16_and_bom_ldraw_files_are_read_like_utf8(tmp_path, library):
    """A UTF-16 file (BOM FF FE or FE FF, what Notepad saves as "Unicode") was refused as binary (its ASCII
    characters hold NUL bytes). It is decoded as LPub3D (Qt's QTextStream) does and gives the UTF-8 file's verdict; a
    UTF-16 file cut mid-character names the line and says to save it as UTF-8."""
    files = {"utf8.ldr": TWO_BRICKS.encode(), "utf8bom.ldr": b"\xef\xbb\xbf" + TWO_BRICKS.encode(),
             "utf16le.ldr": TWO_BRICKS.encode("utf-16-le"), "utf16be.ldr": TWO_BRICKS.encode("utf-16-be")}
    files["utf16le.ldr"] = b"\xff\xfe" + files["utf16le.ldr"]
    files["utf16be.ldr"] = b"\xfe\xff" + files["utf16be.ldr"]
    # 3 CRLF lines of 14 + 38 + 40 = 92 characters, then one odd byte: BOM + 2 * 92 = 186 bytes decode, byte 186
    # starts a cut character on line 4
    files["cut.ldr"] = files["utf16le.ldr"] + b"\x00"
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    p = brickwright("validate", *(str(tmp_path / n) for n in files))
    assert p.returncode == 2, p.stdout + p.stderr  # cut.ldr is unreadable input
    lines = dict(ln.split(": ", 1) for ln in p.stdout.splitlines())
    for name in ("utf8.ldr", "utf8bom.ldr", "utf16le.ldr", "utf16be.ldr"):
        assert lines[str(tmp_path / name)] == "2 parts, 0 colliding pairs, 0 floating, 1 connected component(s) -> VALID"
    assert lines[str(tmp_path / "cut.ldr")] == (
        f"cannot be read: {tmp_path}/cut.ldr:4: UTF-16 text (it starts with a UTF-16 byte-order mark) that is not "
        "valid UTF-16 at byte 186; save it as UTF-8, the encoding LDraw files use (spec 1.0.2)")


def test_utf16_prompts_file_says_save_it_as_utf8(tmp_path):
    """Prompt files are UTF-8 only: a UTF-16 one is named as such (it was "binary data")."""
    f = tmp_path / "prompts.txt"
    f.write_bytes("a red tower\n".encode("utf-16"))
    p = brickwright("eval", str(f), "--out", str(tmp_path / "ev"))
    assert p.returncode == 2
    assert p.stderr.strip() == (f"error: {f}:1: UTF-16 text (it starts with a UTF-16 byte-order mark); save it "
                                "as UTF-8")


# ----------------------------------------------------------------------------- submodel cycles
BRICK_LINE = "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat"
#: main.ldr places a.ldr (line 3), a.ldr places b.ldr (line 6), b.ldr places a.ldr again (line 9): the loop
#: a -> b -> a, closed at line 9. Each block places one brick, so 3 bricks remain once line 9 is skipped.
CYCLE_MPD = "\n".join([
    "0 FILE main.ldr", BRICK_LINE, "1 16 0 -24 0 1 0 0 0 1 0 0 0 1 a.ldr",
    "0 FILE a.ldr", BRICK_LINE, "1 16 0 -24 0 1 0 0 0 1 0 0 0 1 b.ldr",
    "0 FILE b.ldr", BRICK_LINE, "1 16 0 -24 0 1 0 0 0 1 0 0 0 1 a.ldr"]) + "\n"


def test_a_submodel_cycle_is_named_with_its_lines_and_no_part_line_hint(tmp_path, library):
    """The report said "UNREADABLE PART LINE ...: submodel 'a.ldr' references itself" (b.ldr placed it) with the
    hint to write 15 fields. Now: every reference of the loop with its line, what to do, and nothing else; info
    (the flattening reader) warns with the same words; a block placing itself is named as such."""
    model = tmp_path / "cyc.mpd"
    model.write_text(CYCLE_MPD)
    p = brickwright("validate", str(model))
    assert p.returncode == 1
    assert p.stdout.splitlines() == [
        f"{model}: 3 parts, 1 submodel cycle, 0 colliding pairs, 0 floating, 1 connected component(s) -> NOT VALID",
        "SUBMODEL CYCLE cyc.mpd:9: a.ldr places b.ldr (cyc.mpd:6), b.ldr places a.ldr (cyc.mpd:9): a submodel "
        "cannot contain itself, so this reference is skipped; break the cycle: delete one of these references or "
        "make it place another submodel or a part",
        "  the build lacks what each skipped reference would place: break each loop as its line says"]
    p = brickwright("info", str(model))
    assert p.returncode == 0 and "3 parts" in p.stdout
    assert p.stderr.splitlines() == [
        "warning: cyc.mpd:9: submodel cycle: a.ldr places b.ldr (cyc.mpd:6), b.ldr places a.ldr (cyc.mpd:9): a "
        "submodel cannot contain itself, so this reference is skipped; break the cycle: delete one of these "
        "references or make it place another submodel or a part"]

    self_ref = tmp_path / "self.mpd"
    self_ref.write_text("0 FILE main.ldr\n" + BRICK_LINE + "\n1 16 0 -24 0 1 0 0 0 1 0 0 0 1 MAIN.LDR\n")
    p = brickwright("validate", str(self_ref), "--json")
    rep = json.loads(p.stdout)
    assert rep["unreadable_lines"] == [{
        "file": "self.mpd", "line": 3,
        "message": "submodel cycle: main.ldr places itself (self.mpd:3): a submodel cannot contain itself, so this "
                   "reference is skipped; break the cycle: delete this reference or make it place another "
                   "submodel or a part",
        "cycle": [{"in": "main.ldr", "places": "MAIN.LDR", "file": "self.mpd", "line": 3}]}]


def test_a_cycle_through_files_beside_the_model_names_each_file(tmp_path, library):
    """m.ldr places a.ldr (a file beside it), a.ldr places b.ldr, b.ldr places a.ldr at its line 4 (after a
    blank line): each reference is named in the file that holds it, by both readers."""
    (tmp_path / "m.ldr").write_text("0 m\n" + BRICK_LINE + "\n1 16 0 -24 0 1 0 0 0 1 0 0 0 1 a.ldr\n")
    (tmp_path / "a.ldr").write_text("0 a\n" + BRICK_LINE + "\n1 16 0 -24 0 1 0 0 0 1 0 0 0 1 b.ldr\n")
    (tmp_path / "b.ldr").write_text("0 b\n\n" + BRICK_LINE + "\n1 16 0 -24 0 1 0 0 0 1 0 0 0 1 a.ldr\n")
    loop = "a.ldr places b.ldr (a.ldr:3), b.ldr places a.ldr (b.ldr:4)"
    p = brickwright("validate", str(tmp_path / "m.ldr"))
    assert p.returncode == 1 and p.stdout.splitlines()[1].startswith(f"SUBMODEL CYCLE b.ldr:4: {loop}: "), p.stdout
    p = brickwright("info", str(tmp_path / "m.ldr"))
    assert p.stderr.startswith(f"warning: b.ldr:4: submodel cycle: {loop}: "), p.stderr


# ----------------------------------------------------------------------------- a build.py that kills itself
KILLS_ITSELF = '''import os, signal
from bricklayer import *
def create_build():
    os.kill(os.getpid(), signal.{sig})
    b = LegoBuild()
    b.add(Element("3001", Color.RED), (0, 0, 0))
    return b
'''


def test_a_build_that_kills_itself_is_reported_as_that_signal_not_memory(tmp_path):
    """A build.py sending its own process SIGKILL (or SIGTERM) was reported as "killed (most likely out of
    memory)". The kernel counts every out-of-memory kill (/proc/vmstat oom_kill); none happened, so the report
    names the signal and says what to remove. Exit 1 (the build failed), one line, which names the file
    (``error: FILE: ...``, break-it s26 F10)."""
    for sig, no in (("SIGKILL", 9), ("SIGTERM", 15)):
        f = tmp_path / f"{sig.lower()}.py"
        f.write_text(KILLS_ITSELF.replace("{sig}", sig))
        p = brickwright("validate", str(f))
        assert p.returncode == 1, p.stdout + p.stderr
        assert p.stderr.strip() == (
            f"error: {f}: The build's process was killed by signal {no} ({sig}) while running this code; not for lack "
            "of memory (the kernel killed nothing for memory; over its limit of 2048 MB the code gets a "
            "MemoryError): something sent it that signal; remove any os.kill, os.killpg or signal call from the "
            "code and try again."), p.stderr
        assert "out of memory" not in p.stdout + p.stderr


# ----------------------------------------------------------------------------- Ctrl-C during validate a b c
SLOW_BUILD = ("import time\nfrom bricklayer import *\ndef create_build():\n    time.sleep(60)\n"
              "    b = LegoBuild()\n    b.add(Element('3001', Color.RED), (0, 0, 0))\n    return b\n")


def test_ctrl_c_during_several_files_ends_quietly_with_130(tmp_path, library):
    """Ctrl-C reaches the terminal's whole process group: a validate pool process waiting for work printed
    ``Process ForkProcess-N:``. Three files, three pool processes: the .ldr is judged first (its line is
    printed), so its process is idle when SIGINT comes while the two sleeping build.py files are judged. Then:
    exit 130, stderr the one line ``interrupted``, stdout an "interrupted" line per build.py (s25 F5), no
    temporary folder and no process left (both found by a TMPDIR of the test's own)."""
    import os
    import signal
    import time

    model = tmp_path / "two.ldr"
    model.write_text(TWO_BRICKS)
    slow = [tmp_path / f"slow{i}.py" for i in (1, 2)]
    for f in slow:
        f.write_text(SLOW_BUILD)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = subprocess.Popen([sys.executable, "-m", "brickwright", "validate", "--workers", "3", str(model),
                          *map(str, slow)], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "TMPDIR": str(tmp)}, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        first = p.stdout.readline()
        assert first.startswith(f"{model}: 2 parts"), first
        time.sleep(1.0)  # the build.py files are being judged, the .ldr's process waits for work
        # Ctrl-C signals the whole group at once; which process runs first is the scheduler's choice. The pool
        # processes first, then the main process, is the order that shows a pool process's own reaction
        # every time (at once, the main process's clean-up often cut its traceback short).
        pool = [int(c) for c in Path(f"/proc/{p.pid}/task/{p.pid}/children").read_text().split()]
        assert len(pool) == 3
        for pid in pool:
            os.kill(pid, signal.SIGINT)
        time.sleep(1.0)
        os.killpg(p.pid, signal.SIGINT)  # what the terminal does on Ctrl-C
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 130, err
    # s25 F5: each file not judged gets its line ("interrupted"), in the order given
    assert err == "interrupted\n" and out == "".join(
        f"{f}: interrupted: no verdict: interrupted (Ctrl-C) before it was judged; validate it again\n" for f in slow)

    def left() -> list[int]:
        pids = []
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    if f"TMPDIR={tmp}".encode() in (d / "environ").read_bytes().split(b"\0"):
                        pids.append(int(d.name))
                except OSError:
                    pass
        return pids

    deadline = time.monotonic() + 10
    while (left() or any(tmp.iterdir())) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert left() == [] and sorted(f.name for f in tmp.iterdir()) == []


# ----------------------------------------------------------------------------- a block shadowing a library part
#: Two 2 x 4 bricks 10 LDU apart (drawn through each other in the catalog's shape) and, from line 4, a block
#: 0 FILE 3001.dat that replaces the brick's shape with one triangle.
SHADOW_MPD = ("0 FILE main.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 1 10 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
              "0 FILE 3001.dat\n0 Brick  2 x  4\n0 Name: 3001.dat\n0 !LDRAW_ORG Unofficial_Part\n"
              "3 16 0 0 0 1 0 0 0 0 1\n")
SHADOW_WARNING = ("warning: shadow.mpd:4: 0 FILE 3001.dat redefines parts/3001.dat of the LDraw library; {verb} with "
                  "the file's own block, as LDraw viewers do (MPD spec), not the catalog part: `brickwright "
                  "validate` reports the model NOT VALID")


def test_render_and_export_use_the_files_own_block_and_say_so(tmp_path, library):
    """The MPD spec lets the file's block win for its own references; validate tests that shape (no collision
    between the two one-triangle bricks) and calls the model NOT VALID (SHADOWED LIBRARY FILE). Export and
    render do the same (2 placements x 1 triangle = 2 triangles in the STL) and print one warning line."""
    model = tmp_path / "shadow.mpd"
    model.write_text(SHADOW_MPD)
    p = brickwright("validate", str(model))
    assert p.returncode == 1 and "0 colliding pairs" in p.stdout and "SHADOWED LIBRARY FILE shadow.mpd:4" in p.stdout
    p = brickwright("export", str(model), str(tmp_path / "s.stl"), "--json")
    assert p.returncode == 0, p.stderr
    assert json.loads(p.stdout)["triangles"] == 2
    assert p.stderr.splitlines() == [SHADOW_WARNING.format(verb="exported")]
    p = brickwright("render", str(model), "--out", str(tmp_path / "s.png"), "--size", "64x64")
    assert p.returncode == 0 and (tmp_path / "s.png").is_file(), p.stderr
    assert p.stderr.splitlines() == [SHADOW_WARNING.format(verb="drawn")]
