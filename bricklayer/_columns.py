"""Old home of the planner's column test: now :mod:`bricklayer.assembly.columns`.

Kept importable: ``bricklayer._columns`` is the same module object as ``bricklayer.assembly.columns`` (its
caches and settings are shared, not copied)."""

import sys

from .assembly import columns as _columns

sys.modules[__name__] = _columns
