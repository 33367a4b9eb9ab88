"""The one validity report: what makes a build valid, defined once.

:class:`ValidationReport` holds what the checks found, one JSON-ready row per finding (rows describe placements
as :func:`.findings.describe_placement` does: ``part_id``, ``label``, ``file``, ``line`` ...),
the problem lines written for a reader, and :attr:`ValidationReport.valid`, the one definition of a valid build
(the README's *physically feasible*: only catalog parts, no two parts interpenetrate, nothing floats, every
stud joint seated). Every verdict in the toolkit is this property: ``brickwright validate`` (and its
``--json``), the agent's judge and worker (``passed`` in ``result.json`` and the validate tool), and
``validate --inventory``; :func:`bricklayer.validate.validation_report` (:mod:`.findings`) fills the report
and writes its problem lines (the hints), :meth:`ValidationReport.to_dict` gives the JSON they print.
"""

from __future__ import annotations

__all__ = ["ValidationReport", "INVALIDATING_FINDINGS"]

from dataclasses import dataclass, field, fields

#: Findings any one of which makes a build not valid (attribute names of :class:`ValidationReport`, each a list of
#: rows): parts drawn inside each other, parts resting on nothing, stray parts below the build, stud pairs
#: touching but not seated (tilted, turned or shifted off the grid), parts the LDraw library does not know,
#: sub-parts or primitives placed as parts, scaled or sheared matrices, mirror images of asymmetric parts,
#: one part placed twice at one pose, parts over 1,000,000 LDU from the origin, MPD blocks that redefine a
#: file of the LDraw library (a part's shape replaced), part lines of the source file that could not be read,
#: part files the model defines itself, parts beyond a given inventory.
INVALIDATING_FINDINGS = ("collisions", "floating", "below_ground", "unseated", "unknown_parts", "not_parts",
                         "scaled", "mirrored", "duplicates", "out_of_range", "shadowed_files", "unreadable_lines",
                         "embedded_parts", "over_inventory")


@dataclass
class ValidationReport:
    """What the validator found in one build, and the verdict.

    Attributes
    ----------
    source : str
        Name shown in the summary line (file or ``"build"``).
    summary : str
        The summary line without its verdict: ``"<source>: N parts, C colliding pairs, F floating, K
        connected component(s)"``; :attr:`text` adds ``-> VALID`` or ``-> NOT VALID``.
    parts, unique_parts, unique_elements : int
        Placed parts; distinct part ids; distinct (part id, colour) pairs.
    collisions : list of dict
        Pairs of parts drawn inside each other beyond a press fit (``a``, ``b``, ``interference_ldu``,
        ``move_ldu``, ``direction``, ``mated``, ``hint`` ...).
    unexamined_pairs : int
        Nearby pairs not tested because a part already collides with
        :data:`bricklayer.constants.CROWDED_PARTNERS` others; any makes the build not valid.
    floating, below_ground : list of dict
        Parts that rest on nothing; stray parts lying below the rest of the build (``below_ldu``).
    components : int
        Connected components (pieces) of the build.
    component_sizes : list of int
        Parts per component, largest first.
    unknown_parts, not_parts, scaled, unreadable_lines, unseated, mirrored, duplicates, out_of_range : list of dict
        The other findings of :data:`INVALIDATING_FINDINGS`. A row of ``unreadable_lines`` for a reference skipped because it
        closes a submodel cycle also has ``cycle``: each reference of the loop as ``{"in", "places", "file",
        "line"}`` (:class:`ldraw_data.errors.SubmodelCycleWarning`).
    shadowed_files : list of dict
        MPD ``0 FILE`` blocks named like a file of the LDraw library (``name`` as written, ``file`` and
        ``line`` of the ``0 FILE`` line, ``library_file``: the library's name, ``folder``: ``parts``, ``p``
        ...): the model would replace a catalog part's shape (or a primitive of it) with its own, so the
        checks could not trust the part; not valid.
    problems : list of str
        One line per problem, each group followed by a ``try:`` hint (written by the formatter).
    expected_components : int or None
        When given, a different number of components makes the build not valid (not in the JSON).
    embedded_parts : list of str or None
        Part files the model's text defines itself (the agent's judge checks this; None: not checked, and
        not in the JSON).
    over_inventory : list of dict or None
        Rows of :func:`bricklayer.inventory.inventory_problems` (None: no inventory given, not in the JSON).
    """

    source: str = "build"
    summary: str = ""
    parts: int = 0
    unique_parts: int = 0
    unique_elements: int = 0
    collisions: list = field(default_factory=list)
    unexamined_pairs: int = 0
    floating: list = field(default_factory=list)
    components: int = 0
    component_sizes: list = field(default_factory=list)
    unknown_parts: list = field(default_factory=list)
    not_parts: list = field(default_factory=list)
    scaled: list = field(default_factory=list)
    unreadable_lines: list = field(default_factory=list)
    below_ground: list = field(default_factory=list)
    unseated: list = field(default_factory=list)
    mirrored: list = field(default_factory=list)
    duplicates: list = field(default_factory=list)
    out_of_range: list = field(default_factory=list)
    shadowed_files: list = field(default_factory=list)
    problems: list = field(default_factory=list)
    expected_components: int | None = None
    embedded_parts: list | None = None
    over_inventory: list | None = None

    @property
    def valid(self) -> bool:
        """The one definition of a valid build: no finding of :data:`INVALIDATING_FINDINGS`, no untested
        nearby pairs, at least one part (an empty build is not a model), and the expected number of components when one was given."""
        if any(getattr(self, name) for name in INVALIDATING_FINDINGS) or self.unexamined_pairs:
            return False
        if self.expected_components is not None and self.components != self.expected_components:
            return False
        return self.parts > 0

    @property
    def text(self) -> str:
        """The summary line with its verdict (``-> VALID`` / ``-> NOT VALID``), then the problem lines."""
        head = f"{self.summary} -> {'VALID' if self.valid else 'NOT VALID'}"
        return "\n".join([head, *self.problems])

    def to_dict(self) -> dict:
        """The JSON-ready report ``brickwright validate --json`` prints and the judge returns: ``source``,
        ``valid``, the counts and findings in the attribute order above, ``problems`` and ``text``; then
        ``embedded_parts`` and ``over_inventory`` when checked."""
        out = {"source": self.source, "valid": self.valid}
        for f in fields(self):
            if f.name in ("source", "summary", "problems", "expected_components", "embedded_parts",
                          "over_inventory"):
                continue
            out[f.name] = getattr(self, f.name)
        out["problems"] = self.problems
        out["text"] = self.text
        for name in ("embedded_parts", "over_inventory"):
            if getattr(self, name) is not None:
                out[name] = getattr(self, name)
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "ValidationReport":
        """The report back from :meth:`to_dict`'s form (e.g. a verdict that crossed a process boundary); keys
        it does not know are ignored, ``valid`` is recomputed."""
        known = {f.name for f in fields(cls)}
        kw = {k: v for k, v in data.items() if k in known}
        kw["summary"] = str(data.get("text", "")).split("\n", 1)[0].rsplit(" -> ", 1)[0]
        return cls(**kw)
