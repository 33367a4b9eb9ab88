"""Deadlock strategies of the search, one module each, behind one protocol (:class:`DeadlockStrategy`).

:data:`STRATEGIES` maps each strategy's name to its instance; the search asks those named in
``PlannerOptions.strategies`` in that order (default :data:`bricklayer.assembly.options.DEFAULT_STRATEGIES`)
and gives up on one unit when none finds a way on. Each strategy's docstring says the situation it handles.
"""

from __future__ import annotations
from ...errors import BrickLayerValueError

from .base import DeadlockStrategy
from .dissolve import DissolveSubBuild
from .flexed_part import FlexedPart
from .held_pair import HeldPair
from .held_step import HeldStep
from .peel import Peel
from .pinned_snap import PinnedSnap
from .pressed_part import PressedPart
from .snap_fits import SnapFits
from .subassembly import Subassembly
from .turned_group import TurnedGroup
from .unpeel import TakeApartPeeled

__all__ = ["DeadlockStrategy", "STRATEGIES", "strategies_named"]

#: Every strategy by name (``PlannerOptions.strategies`` picks and orders them).
STRATEGIES: dict = {s.name: s for s in (SnapFits(), HeldStep(), Peel(), DissolveSubBuild(), Subassembly(),
                                        TurnedGroup(), PressedPart(), HeldPair(), PinnedSnap(), FlexedPart(),
                                        TakeApartPeeled())}


def strategies_named(names) -> list:
    """The strategies of ``names`` (an iterable of :data:`STRATEGIES` keys), in that order.

    Raises ValueError naming an unknown strategy and listing the known ones."""
    out = []
    for n in names:
        s = STRATEGIES.get(n)
        if s is None:
            raise BrickLayerValueError(f"PlannerOptions.strategies: unknown deadlock strategy {n!r}; known: "
                             f"{', '.join(STRATEGIES)}")
        out.append(s)
    return out
