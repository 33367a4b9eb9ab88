"""Helpers shared by the validator tests of this folder (not a test module)."""


def ldr_build(*lines: str):
    """A build from ``"colour x y z part"`` lines (LDraw type-1 lines with identity rotation, LDraw frame,
    LDU). Shared by the validator tests (``from _ldr_helpers import ldr_build``)."""
    from bricklayer import from_ldraw

    out = []
    for ln in lines:
        c, x, y, z, part = ln.split()
        out.append(f"1 {c} {x} {y} {z} 1 0 0 0 1 0 0 0 1 {part}")
    return from_ldraw("\n".join(out) + "\n")
