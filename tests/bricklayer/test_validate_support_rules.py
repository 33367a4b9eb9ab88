"""Support rules for parts held without connectors (issue 16, audit in benchmarks/validator_audit.md).

Snippets are cut from the official models (world matrices composed through their submodels, LDraw
frame, -Y up, LDU):

- sticker on a surface: 10252 Volkswagen Beetle, the MPD-embedded rear-window sticker
  ``10252 - 6153754q.dat`` (file line 940, "Sticker 3.4 x 0.9 ...", a 0.25 LDU slab) lying on the
  windscreen panel 30007 (line 928): its vertices lie 0.0-0.25 LDU from the panel's surface (measured
  with the audit's own point-to-triangle distance, benchmarks/audit/ldr.py);
- flexible pieces carry support: 6285 Black Seas Barracuda, the crane hook 3127a (line 501) hanging on
  rigging drawn with scaled ``4-4cyli.dat`` primitives (lines 2427-2445) from the hinge plate 4504
  (line 491); tested on the whole model, where the hinge plate is held by the ship.
"""

from __future__ import annotations


from bricklayer import from_ldraw
from bricklayer.validate.support import _stickers, support_graph
from bricklayer.validate.collisions import collision_engine

_STICKER_BLOCK = """0 FILE 10252 - 6153754q.dat
0 Sticker 3.4 x  0.9 with Dark Azur Rear Window Shape
0 Name: 10252 - 6153754q.dat
0 !LDRAW_ORG Unofficial_Part
0 BFC CERTIFY CCW
1 16 0 -0.25 0 9 0 0 0 0.25 0 0 0 34 box5-12.dat
0 BFC NOCLIP
4 321 -9 -0.25 34 -9 -0.25 -34 9 -0.25 -34 9 -0.25 34
"""
_PANEL = "1 47 203.615 -184.953 -40 0 0.707 0.707 0 0.707 -0.707 -1 0 0 30007.dat"


def _sticker_model(dy: float = 0.0):
    sticker = f"1 15 236.144 {-166.563 + dy} -70 0 -0.707 -0.707 0 0.707 -0.707 1 0 0 10252 - 6153754q.dat"
    return from_ldraw("0 FILE main.ldr\n" + _PANEL + "\n" + sticker + "\n0 NOFILE\n" + _STICKER_BLOCK)


def test_embedded_sticker_is_recognised_by_its_title():
    b = _sticker_model()
    assert _stickers(collision_engine(b)).tolist() == [False, True]


def test_sticker_lying_on_the_windscreen_is_held_by_it():
    b = _sticker_model()
    res = support_graph(b)
    assert res.floating.tolist() == []
    assert [0, 1] in res.edges.tolist()  # panel -> sticker
    assert [1, 0] not in res.edges.tolist()  # a sticker holds nothing up


def test_sticker_lifted_off_the_surface_floats():
    # lifted 6 LDU (LDraw -Y): 4.2 LDU off the 45-degree windscreen along its normal
    b = _sticker_model(dy=-6.0)
    assert support_graph(b).floating.tolist() == [1]


def test_hook_hangs_from_the_rigging_string_in_the_ship(official_dir):
    # in the whole model the hinge plate is supported by the ship; the string (exempt primitives) carries
    # that support to the hook hanging on it (before this rule: reported floating, audit entry 39)
    from bricklayer.validate._world import flexible_mask

    b = from_ldraw((official_dir / "6285_Black_Seas_Barracuda.mpd").read_text())
    flat = b.flattened_placements
    res = support_graph(b)
    flex = flexible_mask(b)
    hook = 1755  # #493: the 3127a of file line 501
    assert flat[hook].content.ldraw_id == "3127a"
    assert res.supported[hook]
    holders = res.edges[res.edges[:, 1] == hook, 0]
    assert any(flex[h] and flat[h].content.ldraw_id == "4-4cyli" for h in holders.tolist())
