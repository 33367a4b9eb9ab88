"""Inputs that are endless, huge or not regular files, and output paths whose folder is missing, through the
real command line (breakit report s24, findings 2 and 7): one line on stderr and exit 2, in bounded memory.

Sizes are kept small with ``BRICKWRIGHT_MAX_INPUT_MB=1`` so that no test allocates more than a few MB.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ldraw_data.errors import InputReadError, LDrawLimitError
from ldraw_data.fileio import MAX_INPUT_BYTES, read_input_bytes
from ldraw_data.library import read_model_file

REPO = Path(__file__).resolve().parents[1]
BRICK = "1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat"


def cli(*args: str, env: dict | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``python -m brickwright ARGS`` from the worktree root (stdin closed)."""
    return subprocess.run([sys.executable, "-m", "brickwright", *args], cwd=REPO, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})


@pytest.mark.parametrize("cmd", ["info", "validate"])
def test_dev_zero_stops_at_the_first_nul_byte(library, cmd):
    """/dev/zero used to be read whole (24 GB, OOM-killed): now the first 1 MiB chunk holds a NUL at offset 0."""
    p = cli(cmd, "/dev/zero")
    assert p.returncode == 2, p.stderr
    assert p.stderr.strip().splitlines() == [
        "error: /dev/zero:1: binary data (a NUL byte at offset 0): this is not an LDraw text file; "
        "give a .ldr, .mpd or .dat file (LDraw files are plain text)"]


def test_text_file_over_the_size_limit_is_one_line(tmp_path, library):
    """A 1.5 MiB text model with the limit set to 1 MB: refused before parsing, the limit and the variable named."""
    model = tmp_path / "big.ldr"
    model.write_text(BRICK + "\n" + "0 comment line of text\n" * 70_000)  # 37 + 23 x 70,000 bytes > 1 MiB
    assert model.stat().st_size == 1_610_037
    p = cli("info", str(model), env={"BRICKWRIGHT_MAX_INPUT_MB": "1"})
    assert p.returncode == 2
    assert p.stderr == (f"error: {model}: larger than the input size limit of 1 MB (the largest official LDraw set "
                        "model is 3 MB); give a smaller file, or set BRICKWRIGHT_MAX_INPUT_MB to a larger number "
                        "of MB\n")
    # under the limit it reads: 2 MB allows it (one brick and comments)
    ok = cli("info", str(model), env={"BRICKWRIGHT_MAX_INPUT_MB": "2"})
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("big.ldr: 1 part,")


def test_endless_text_stream_on_stdin_stops_at_the_limit(library):
    """`yes | brickwright info /dev/stdin` used to grow without bound: a pipe is read in chunks up to the limit."""
    yes = subprocess.Popen(["yes", "0 comment"], stdout=subprocess.PIPE)
    try:
        p = subprocess.run([sys.executable, "-m", "brickwright", "info", "/dev/stdin"], cwd=REPO, stdin=yes.stdout,
                           capture_output=True, text=True, timeout=120,
                           env={**os.environ, "BRICKWRIGHT_MAX_INPUT_MB": "1"})
    finally:
        yes.kill()
        yes.wait()
        yes.stdout.close()
    assert p.returncode == 2
    assert p.stderr.startswith("error: /dev/stdin: larger than the input size limit of 1 MB")


def test_bad_limit_variable_says_what_to_give(tmp_path, library):
    model = tmp_path / "m.ldr"
    model.write_text(BRICK + "\n")
    p = cli("info", str(model), env={"BRICKWRIGHT_MAX_INPUT_MB": "lots"})
    assert p.returncode == 2
    assert "BRICKWRIGHT_MAX_INPUT_MB='lots' is not a whole number of MB above 0" in p.stderr
    assert len(p.stderr.splitlines()) == 1


def test_named_pipe_with_a_writer_is_read_as_a_model(tmp_path, library):
    """A FIFO is streamed: the model written into it by another thread is read (1 brick 3001)."""
    fifo = tmp_path / "model.ldr"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("0 test\n" + BRICK + "\n"))
    writer.start()
    p = cli("info", str(fifo))
    writer.join(timeout=30)
    assert p.returncode == 0, p.stderr
    assert p.stdout.startswith("model.ldr: 1 part,")


def test_named_pipe_without_a_writer_gives_up(tmp_path):
    """A FIFO nothing writes to used to block forever (as `cat` does): the reader waits fifo_wait_s, then fails."""
    fifo = tmp_path / "idle.ldr"
    os.mkfifo(fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    with pytest.raises(InputReadError, match=r"idle\.ldr: a named pipe that nothing was written to within 0\.2 s"):
        read_input_bytes(fifo, fifo_wait_s=0.2)
    with pytest.raises(LDrawLimitError, match=r"idle\.ldr: a named pipe"):  # the error model readers raise
        read_input_bytes(fifo, fifo_wait_s=0.1, fail=lambda why: LDrawLimitError(str(fifo), None, why))


def test_reader_stops_at_the_first_nul_and_keeps_text_whole(tmp_path):
    """Bytes after the first NUL are not returned (nor read past that chunk); text files come back unchanged."""
    f = tmp_path / "x.ldr"
    f.write_bytes(b"0 a\n0 b\n\x00" + b"z" * 10)
    assert read_input_bytes(f) == b"0 a\n0 b\n\x00"
    with pytest.raises(Exception, match=r"x\.ldr:3: binary data \(a NUL byte at offset 8\)"):
        read_model_file(f)
    official = sorted(Path("/work/shared/models/official").glob("*.mpd"))
    if official:
        biggest = max(official, key=lambda q: q.stat().st_size)
        assert biggest.stat().st_size < MAX_INPUT_BYTES / 50  # 3.0 MB against 256 MiB
        assert read_input_bytes(biggest) == biggest.read_bytes()


@pytest.mark.parametrize("cmd, name", [
    (["render", "{m}", "--out", "{o}", "--size", "64x48"], "x.png"),
    (["export", "{m}", "{o}"], "x.glb"),
    (["parts", "{m}", "--out", "{o}"], "x.csv"),
    (["instructions", "{m}", "--out", "{o}", "--no-images"], "steps"),
])
def test_output_in_a_missing_folder_is_refused(tmp_path, library, cmd, name):
    """--out in a folder that does not exist used to create it (and every folder above, even /nonexistent):
    now one line naming the missing folder, exit 2, and nothing is created."""
    model = tmp_path / "m.ldr"
    model.write_text("0 test\n" + BRICK + "\n")
    missing = tmp_path / "missing"
    out = missing / name
    p = cli(*[a.format(m=model, o=out) for a in cmd])
    doing = "cannot create the folder" if cmd[0] == "instructions" else "cannot write"
    assert p.returncode == 2
    assert p.stderr == (f"error: {doing} {out}: no such folder {missing}; create it first (mkdir -p {missing}) "
                        "or choose an existing folder\n")
    assert not missing.exists()


def test_output_below_a_file_is_refused(tmp_path, library):
    model = tmp_path / "m.ldr"
    model.write_text("0 test\n" + BRICK + "\n")
    out = model / "sub" / "x.csv"  # the file is two levels up
    p = cli("parts", str(model), "--out", str(out))
    assert p.returncode == 2
    assert p.stderr == f"error: cannot write {out}: {model} is a file, not a folder; choose a file name in a folder\n"


def test_instructions_makes_its_own_out_folder(tmp_path, library):
    """instructions --out FOLDER still creates FOLDER itself when the folder holding it exists."""
    model = tmp_path / "m.ldr"
    model.write_text("0 test\n" + BRICK + "\n")
    p = cli("instructions", str(model), "--out", str(tmp_path / "steps"), "--no-images")
    assert p.returncode == 0, p.stderr
    assert sorted(f.name for f in (tmp_path / "steps").iterdir()) == ["plan.json", "steps.mpd"]
