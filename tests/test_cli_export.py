"""`brickwright export` and `brickwright parts`: files written, read back, errors and exit codes."""

import csv
import io
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from brickwright.cli import app

runner = CliRunner()

MODEL = """0 two bricks
0 Name: two.ldr
1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat
1 47 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat
"""


def run(*args):
    return runner.invoke(app, [str(a) for a in args])


@pytest.fixture
def model(tmp_path, library):
    p = tmp_path / "two.ldr"
    p.write_text(MODEL)
    return p


def test_export_glb_then_refuses_to_overwrite_without_force(model, tmp_path):
    import trimesh

    out = tmp_path / "two.glb"
    r = run("export", model, out, "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["placements"] == 2
    # two 3001 stacked: x -40..40, LDraw y -28..24, z -20..20 LDU -> glTF metres (x, -y, -z) * 0.0004
    assert np.allclose(trimesh.load(out).bounds, [[-0.016, -0.0096, -0.008], [0.016, 0.0112, 0.008]], atol=1e-7)
    r = run("export", model, out)
    assert r.exit_code == 2 and "--force" in r.output
    assert run("export", model, out, "--force").exit_code == 0


def test_export_obj_stl_and_unknown_suffix(model, tmp_path):
    r = run("export", model, tmp_path / "two.obj")
    assert r.exit_code == 0 and "two.mtl" in r.output
    assert (tmp_path / "two.mtl").exists()
    r = run("export", model, tmp_path / "two.stl")
    assert r.exit_code == 0 and "not watertight" in r.output
    r = run("export", model, tmp_path / "two.fbx")
    assert r.exit_code == 2 and ".glb" in r.output and not (tmp_path / "two.fbx").exists()


def test_export_missing_model_is_one_line(tmp_path):
    r = run("export", tmp_path / "nope.ldr", tmp_path / "x.glb")
    assert r.exit_code != 0 and "no such file" in r.output and "Traceback" not in r.output


def test_parts_csv_json_and_marketplace_formats(model, tmp_path):
    out = tmp_path / "parts.csv"
    r = run("parts", model, "--out", out)
    assert r.exit_code == 0, r.output
    rows = list(csv.DictReader(out.open()))
    assert {(d["part_id"], d["color"], d["quantity"]) for d in rows} == {("3001", "4", "1"), ("3001", "47", "1")}
    assert {d["color_name"] for d in rows} == {"Red", "Trans Clear"}
    r = run("parts", model, "--json")
    data = json.loads(r.stdout)
    assert data["parts"] == 2 and len(data["rows"]) == 2
    # marketplace formats without a colour table: a usage error that says why
    r = run("parts", model, "--format", "rebrickable-csv")
    assert r.exit_code == 2 and "--color-map" in r.output
    cmap = tmp_path / "colors.csv"
    cmap.write_text("ldraw,rebrickable\n4,4\n")
    r = run("parts", model, "--format", "rebrickable-csv", "--color-map", cmap)
    assert r.exit_code == 0
    assert list(csv.reader(io.StringIO(r.stdout))) == [["Part", "Color", "Quantity"], ["3001", "4", "1"]]
    assert "left out: 1 x 3001" in r.output and "not in the colour table" in r.output
    r = run("parts", model, "--format", "xlsx")
    assert r.exit_code == 2


@pytest.mark.parametrize("cmd", [["export", "{m}", "{m}/x.glb"], ["parts", "{m}", "--out", "{m}/p.csv"]])
def test_out_below_a_file_names_the_target_not_a_temp_file(model, tmp_path, cmd):
    """F5: `--out model.ldr/x` (a file used as a folder): one line naming the path given and the file in the way."""
    r = run(*[a.format(m=model) for a in cmd])
    assert r.exit_code == 2, r.output
    target = cmd[-1].format(m=model)
    assert r.output.strip() == (f"error: cannot write {target}: {model} is a file, not a folder; "
                                "choose a file name in a folder"), r.output
    assert ".tmp" not in r.output and model.read_text() == MODEL


def test_unwritable_folder_is_an_output_write_error_naming_the_target(tmp_path, library):
    """F5, SDK: write_ldraw into a folder the OS refuses raises OutputWriteError (an OSError under ToolkitError)
    naming the path given; /sys refuses file creation even to root."""
    import errno

    from bricklayer import Element, LegoBuild, write_ldraw
    from bricklayer.errors import OutputWriteError, ToolkitError

    target = "/sys/wall.ldr"
    try:
        open(target, "x").close()
    except OSError:
        pass
    else:  # pragma: no cover - a system whose /sys is writable
        pytest.skip("/sys is writable here")
    b = LegoBuild()
    b.add(Element("3001", "red"), (0, 0, 0))
    with pytest.raises(OutputWriteError) as ei:
        write_ldraw(b, target)
    assert isinstance(ei.value, ToolkitError) and isinstance(ei.value, OSError)
    assert str(ei.value) == "cannot write /sys/wall.ldr: permission denied; choose a folder you can write to"
    assert ei.value.filename == target and ei.value.errno in (errno.EACCES, errno.EPERM)


@pytest.mark.parametrize("cmd", [["parts", "{m}", "--out", "{m}", "--force"],
                                 ["parts", "{m}", "--out", "{d}/./two.ldr", "--force"],
                                 ["export", "{m}", "{d}/two.obj", "--force"]])
def test_output_onto_the_input_model_is_refused_even_with_force(model, tmp_path, cmd):
    """F6: the model is never replaced by its own parts list or export (also by another path to it; for .obj
    the .mtl beside it would be written: here a model named two.mtl)."""
    if cmd[0] == "export":
        model = model.rename(tmp_path / "two.mtl")
    r = run(*[a.format(m=model, d=tmp_path) for a in cmd])
    assert r.exit_code == 2, r.output
    assert "is the input model" in r.output and "give another output file name" in r.output
    assert model.read_text() == MODEL


@pytest.mark.parametrize("cmd", [["export", "{m}", "{d}/x.glb"], ["parts", "{m}", "--out", "{d}/x.glb"]])
def test_output_that_is_a_folder_says_so_first(model, tmp_path, cmd):
    """F11: a folder where the output file goes is named as a folder at once (not "exists; pass --force", after
    which --force would only then say it is a folder); the SDK writers share the check."""
    (tmp_path / "x.glb").mkdir()
    r = run(*[a.format(m=model, d=tmp_path) for a in cmd])
    assert r.exit_code == 2 and r.output.strip() == f"error: {tmp_path}/x.glb is a folder; give a file name"
    from bricklayer import read_ldraw, write_ldraw
    from bricklayer.errors import OutputIsAFolderError

    with pytest.raises(OutputIsAFolderError, match="x.glb is a folder; give a file name"):
        write_ldraw(read_ldraw(model), tmp_path / "x.glb")
