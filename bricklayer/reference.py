"""``api_reference()``: the SDK reference generated from docstrings.

This is the text the BrickWright agent reads in its system prompt and what
``python -m bricklayer`` prints; it is generated from the public names'
signatures and docstrings, so it cannot drift from the code.
"""

from __future__ import annotations

__all__ = ["api_reference"]

import inspect
import re


def _doc(obj, full: bool) -> str:
    d = inspect.getdoc(obj) or ""
    if not full:
        # summary paragraph plus Parameters/Returns/Raises sections, no Notes/Examples
        keep, skip = [], False
        for line in d.splitlines():
            if line.strip() in ("Notes", "Examples", "References", "See Also"):
                skip = True
            elif line.strip() in ("Parameters", "Returns", "Raises", "Attributes"):
                skip = False
            if not skip:
                keep.append(line)
        d = "\n".join(keep).strip()
    return d


def _sig(obj) -> str:
    try:
        s = str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"
    s = re.sub(r"<(\w+\.\w+): [^>]*>", r"\1", s)
    s = re.sub(r"ForwardRef\('([^']*)'\)", r"\1", s)
    return re.sub(r"""["']+([A-Za-z_][\w\[\], .|]*)["']+""", r"\1", s)


def _indent(text: str, n: int) -> str:
    pad = " " * n
    return "\n".join(pad + ln if ln.strip() else "" for ln in text.splitlines())


def api_reference(*, full: bool = False) -> str:
    """The BrickLayer API reference as plain text, generated from docstrings.

    Parameters
    ----------
    full : bool
        Include Notes and Examples sections (default: signatures, summaries,
        parameters, returns and raises only, to keep the agent's prompt short).

    Returns
    -------
    str
    """
    import bricklayer

    out = ["# BrickLayer API reference", "", inspect.getdoc(bricklayer) or "", ""]
    for name in bricklayer.__all__:
        obj = getattr(bricklayer, name)
        if inspect.isclass(obj):
            import enum

            if issubclass(obj, enum.Enum):
                members = list(obj.__members__)
                shown = ", ".join(members[:40]) + (f", ... ({len(members)} in all)" if len(members) > 40 else "")
                out.append(f"## class {name} (enum): {shown}")
                out.append(_indent(_doc(obj, full), 2))
                out.append("")
                continue
            out.append(f"## class {name}{_sig(obj)}")
            out.append(_indent(_doc(obj, full), 2))
            for mname, member in inspect.getmembers(obj):
                if mname.startswith("_") or mname not in obj.__dict__ and not any(
                        mname in k.__dict__ for k in obj.__mro__[1:] if k.__module__.startswith("bricklayer")):
                    continue
                if isinstance(member, property):
                    out.append(f"  .{mname}  (property)")
                    d = _doc(member, full)
                    if d:
                        out.append(_indent(d.splitlines()[0], 6))
                elif inspect.isfunction(member) or inspect.ismethod(member):
                    out.append(f"  .{mname}{_sig(member)}")
                    d = _doc(member, full)
                    if d:
                        out.append(_indent(d, 6))
            out.append("")
        elif callable(obj):
            out.append(f"## {name}{_sig(obj)}")
            out.append(_indent(_doc(obj, full), 2))
            out.append("")
        else:
            out.append(f"## {name} = {obj!r}")
            out.append("")
    return "\n".join(out).rstrip() + "\n"
