"""Traits of LDraw parts read from their titles: one table for the validator and the planner.

A trait is a physical property that changes how a part is checked or planned (it is drawn bent,
it is glued on, it is soft...). LDraw has no field for them; the part title says it
("Hose Flexible Segment 8.5L", "Sticker 1 x 2 ...", "Minifig Chain Link"). Each trait of
:data:`TRAITS` lists the words and phrases of titles that carry it; a title has the trait when one
of them occurs as WHOLE words (case-insensitive, an optional plural "s"): "rope" is found in
"Rope Bridge" but not in "Propeller", "chain" in "Chain 5 Links" but not in "Chainsaw".

The consumers pick traits by what they need:

- :data:`UNSUPPORTED_OK` (the validator, :func:`bricklayer.validate._world.flexible_mask`): parts
  drawn as pieces of a flexible whole (hose and string segments, LSynth output, chain links,
  ropes) are never reported floating and are left out of the component count;
- ``"segment"`` and ``"chain link"`` (:meth:`bricklayer.validate.collisions.CollisionEngine.same_flexible`):
  pieces of one flexible part drawn under the same parent overlap by design;
- ``"sticker"`` (:mod:`bricklayer.validate.support`): held by any part it touches;
- :data:`DRAWN_BENT` (the assembly planner, :func:`bricklayer.assembly.skip_reason`): parts whose
  drawn shape is the bent final one, which cannot travel along a line, are added in a last step;
- ``"elastic"`` and ``"soft"`` (the planner): rubber tyres stretch over rims, rigging nets are draped;
- ``"fabric"`` (:mod:`bricklayer.validate.support`, the hanging test): LDraw's "Sheet Fabric" parts (sails,
  canvas and wagon covers: 37 library titles start so; of the 86 parts of ``!CATEGORY Sheet Fabric`` the
  others are titled "Cloth", "Cape", "Sail"...) hang through holes wider than what they hang on;
- ``"round"`` (the validator's stud seating, :func:`bricklayer.validate.connections._unseated_rows`): round
  plates, bricks, dishes and turntables turn on their studs (a round 2 x 2 plate's studs sit between its
  rim and centre tube).

Sources of the words: LDraw part titles of the library (``Hose Flexible ...`` 754-756,
``Technic Flex-System Hose End`` u9053, ``LSynth ...``, ``Minifig Chain Link`` 30104k02 and its
alias 209, ``Sticker ...``, ``Tyre ...``, ``Rigging ...``) and the word lists the validator and the
planner kept before this table (issue 16, item 5).
"""

from __future__ import annotations

__all__ = ["TRAITS", "UNSUPPORTED_OK", "DRAWN_BENT", "title_traits", "has_trait"]

import re
from functools import lru_cache
from .errors import LDrawKeyError

#: Trait name -> words or phrases of a part title (lower case; matched as whole words, optional plural "s").
#: A leading "^" anchors the phrase at the start of the title (after LDraw's title marks "~", "=", "_", "|"):
#: a sticker's title starts with "Sticker" (3,000 library parts), while "Slope Brick Curved 2 x 1 with ...
#: Left Sticker" (11477dy1) is a rigid part with a sticker applied.
TRAITS: dict[str, tuple[str, ...]] = {
    "sticker": ("^sticker",),
    "segment": ("segment",),
    "lsynth": ("lsynth",),
    "string": ("string",),
    "rope": ("rope",),
    "flexible hose": ("hose flexible", "flex-system", "flex cable"),
    "hose": ("hose",),
    "chain link": ("chain link",),
    "chain": ("chain",),
    "cable": ("cable", "electric wire"),
    "cloth": ("cloth", "cape"),
    "fabric": ("^sheet fabric",),
    "ribbon": ("ribbon",),
    "flex": ("flex", "flexible"),
    "rubber band": ("rubber band",),
    "elastic": ("tyre", "tire", "rubber"),
    "soft": ("rigging",),
    "round": ("round", "dish", "turntable"),
}

#: Traits of parts the validator never reports floating nor counts as components (pieces of a
#: flexible whole, see module notes).
UNSUPPORTED_OK = frozenset({"segment", "lsynth", "string", "rope", "flexible hose", "chain link"})
#: Traits of parts the planner adds last: their drawn shape is the bent final one (and stickers).
DRAWN_BENT = frozenset({"sticker", "hose", "string", "cable", "chain", "rubber band", "cloth", "ribbon", "flex"})

def _pattern(words) -> re.Pattern:
    """One regex for a trait's phrases (whole words, optional plural "s", "^" anchors at the title start)."""
    alts = [(r"^[~=|\s]*" + re.escape(w[1:])) if w.startswith("^") else r"\b" + re.escape(w) for w in words]
    return re.compile(r"(?:" + "|".join(alts) + r")s?\b", re.I)


_PATTERNS = {t: _pattern(words) for t, words in TRAITS.items()}


@lru_cache(maxsize=None)
def title_traits(title: str) -> frozenset:
    """The traits (names of :data:`TRAITS`) of a part title.

    Parameters
    ----------
    title : str
        LDraw part title (catalog name, or the first line of an MPD-embedded file); ``""`` gives none.

    Returns
    -------
    frozenset of str
    """
    if not title:
        return frozenset()
    title = title.replace("_", " ")  # "~_Hose Reel ..." (obsolete marks), "Rubber_Black" (colour suffixes)
    return frozenset(t for t, p in _PATTERNS.items() if p.search(title))


def has_trait(title: str, traits) -> bool:
    """True when the title carries one of ``traits`` (a trait name or an iterable of them).

    Raises
    ------
    KeyError
        A trait name not in :data:`TRAITS`.
    """
    want = {traits} if isinstance(traits, str) else set(traits)
    unknown = want - TRAITS.keys()
    if unknown:
        raise LDrawKeyError(f"unknown part trait(s) {sorted(unknown)}; known: {sorted(TRAITS)}")
    return bool(title_traits(title) & want)
