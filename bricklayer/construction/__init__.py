"""Construction helpers: real parts by size, minifigures, doors, windows, mirroring, fills and stickers."""

from .parts import SizeNotAvailableError, available_sizes, brick, inverted_slope, plate, slope, tile
from .figures import DOOR_VARIANTS, WINDOW_VARIANTS, door, minifigure, window
from .mirror import mirror, mirror_counterpart
from .fill import fill_box, fill_inverted_slope, fill_slope
from .stickers import stick

__all__ = [
    "brick", "plate", "tile", "slope", "inverted_slope", "available_sizes", "SizeNotAvailableError",
    "minifigure", "door", "window", "DOOR_VARIANTS", "WINDOW_VARIANTS",
    "mirror", "mirror_counterpart",
    "fill_box", "fill_slope", "fill_inverted_slope",
    "stick",
]
