"""Inventories: the parts a build may use (a set you own, a bin of bricks), and what a build uses beyond them.

An inventory is a CSV file with a header row. Recognised columns (case-insensitive):

- the part: ``part_id``, ``part`` or ``part_num`` (LDraw part id; ``.dat`` optional);
- the colour: ``color``, ``colour`` or ``color_code`` (an LDraw colour code; empty: any colour);
- the count: ``quantity``, ``qty`` or ``count`` (default 1).

That is the CSV ``brickwright parts MODEL --out parts.csv`` writes (``part_id,name,color,color_name,quantity,
kind``), so a model's own parts list is an inventory for building it again. Colour codes are LDraw's
(LDConfig.ldr); a marketplace export with its own colour numbers must be mapped first (docs/export.md:
there is no honest offline table).
"""

from __future__ import annotations

__all__ = ["Inventory", "read_inventory", "inventory_problems"]

import csv
import io
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from .errors import BrickLayerError
from .errors import BrickLayerValueError

_PART = ("part_id", "part", "part_num", "partid")
_COLOR = ("color", "colour", "color_code", "colour_code", "color_id")
_QTY = ("quantity", "qty", "count")


def _norm(part_id: str) -> str:
    p = str(part_id).strip().lower().replace("\\", "/")
    return p[:-4] if p.endswith(".dat") else p


@dataclass(frozen=True)
class Inventory:
    """Parts a build may use.

    Attributes
    ----------
    counts : dict of (str, int or None) to int
        (part id in lower case without ``.dat``, LDraw colour code or None for any colour) -> quantity.
    source : str
        Where it was read from (named in problems).
    """

    counts: dict = field(default_factory=dict)
    source: str = "inventory"

    def to_json(self) -> dict:
        """JSON-ready form (``{"source", "rows": [[part, colour or null, quantity], ...]}``)."""
        return {"source": self.source, "rows": [[p, c, n] for (p, c), n in sorted(
            self.counts.items(), key=lambda kv: (kv[0][0], -1 if kv[0][1] is None else kv[0][1]))]}

    @classmethod
    def from_json(cls, data: dict) -> "Inventory":
        """Inverse of :meth:`to_json`; raises ValueError on anything else."""
        try:
            rows = data["rows"]
            counts = {(_norm(p), None if c is None else int(c)): int(n) for p, c, n in rows}
        except (KeyError, TypeError, ValueError) as exc:
            raise BrickLayerValueError(f"not an inventory: {exc}") from None
        return cls(counts, str(data.get("source") or "inventory"))

    def describe(self, limit: int = 200) -> str:
        """One line per row (``3001 colour 4 x 2``), for a prompt; at most ``limit`` rows."""
        rows = self.to_json()["rows"]
        lines = [f"{p} {'any colour' if c is None else f'colour {c}'} x {n}" for p, c, n in rows[:limit]]
        if len(rows) > limit:
            lines.append(f"... and {len(rows) - limit} more rows")
        return "\n".join(lines)


def read_inventory(path) -> Inventory:
    """Read an inventory CSV (see the module docstring).

    Parameters
    ----------
    path : str or Path

    Returns
    -------
    Inventory

    Raises
    ------
    BrickLayerError
        When the file cannot be read, has no part column, or a row has a bad colour or quantity; the message
        names the file and the line.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise BrickLayerError(f"{p}: cannot read the inventory ({exc})") from None
    reader = csv.DictReader(io.StringIO(text))
    cols = {c.strip().lower(): c for c in (reader.fieldnames or []) if c}
    part_col = next((cols[c] for c in _PART if c in cols), None)
    if part_col is None:
        raise BrickLayerError(f"{p}:1: no part column; the header needs one of {', '.join(_PART)} "
                              "(e.g. the CSV `brickwright parts MODEL --out parts.csv` writes)")
    color_col = next((cols[c] for c in _COLOR if c in cols), None)
    qty_col = next((cols[c] for c in _QTY if c in cols), None)
    counts: Counter = Counter()
    for line, row in enumerate(reader, start=2):
        part = _norm(row.get(part_col) or "")
        if not part:
            continue
        try:
            raw = (row.get(color_col) or "").strip() if color_col else ""
            color = int(raw) if raw else None
            qty = int((row.get(qty_col) or "1").strip()) if qty_col else 1
        except ValueError:
            raise BrickLayerError(f"{p}:{line}: colour and quantity must be whole numbers (LDraw colour codes), "
                                  f"got {row.get(color_col)!r} and {row.get(qty_col)!r}") from None
        if qty < 0:
            raise BrickLayerError(f"{p}:{line}: quantity {qty} is negative")
        counts[(part, color)] += qty
    return Inventory(dict(counts), p.name)


def inventory_problems(build, inventory: Inventory) -> list[dict]:
    """What a build uses beyond an inventory.

    Each (part, colour) used takes first from the inventory's rows of that exact colour, then from its
    any-colour rows of that part.

    Parameters
    ----------
    build : LegoBuild
        Nested builds count once per placement.
    inventory : Inventory

    Returns
    -------
    list of dict
        One per (part id, colour code) used beyond the inventory: ``part_id``, ``color``, ``used``,
        ``available`` (its exact-colour count plus what is left of the any-colour rows), ``missing``.
    """
    used = Counter((_norm(fp.content.ldraw_id), int(fp.content.color)) for fp in build.flattened_placements)
    any_left = Counter({p: n for (p, c), n in inventory.counts.items() if c is None})
    out = []
    for (part, color), n in sorted(used.items()):
        exact = inventory.counts.get((part, color), 0)
        need = n - exact
        if need <= 0:
            continue
        take = min(need, any_left[part])
        any_left[part] -= take
        if need - take > 0:
            out.append({"part_id": part, "color": color, "used": n, "available": exact + take,
                        "missing": need - take})
    return out
