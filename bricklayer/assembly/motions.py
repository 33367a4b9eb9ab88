"""Motions of a part or a group into place other than a straight line: turned in on a click hinge, slid in
lifted and pressed down onto its studs; and the straight-path test they end with (sampled every
``PlannerOptions.sample_step`` LDU). Mixed into :class:`bricklayer.assembly.geometry._Geometry`."""

from __future__ import annotations

import numpy as np

from .options import _DIR_NAMES, DIRECTIONS

__all__: list = []


def _turned(t: np.ndarray, axis: np.ndarray, pivot: np.ndarray, deg: float) -> np.ndarray:
    """World pose ``t`` turned by ``deg`` degrees about the line through ``pivot`` along unit ``axis``."""
    a = np.radians(deg)
    x, y, z = axis
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    r = np.eye(3) + np.sin(a) * k + (1 - np.cos(a)) * (k @ k)
    out = np.eye(4)
    out[:3, :3] = r
    out[:3, 3] = pivot - r @ pivot
    return out @ t


class _Motions:
    """Hinge turns and pressed moves of one build's parts (mixin of ``_Geometry``; uses its boxes,
    poses, hinges and collision tests)."""

    def _meets(self, u: int, pose: np.ndarray, others) -> int:
        """The first of parts ``others`` that part u at world ``pose`` meets (insets as :meth:`final_inset`),
        or -1."""
        inv = np.linalg.inv(pose)
        for j in others:
            ins = self.final_inset(u, j)
            if ins is None:
                continue
            if self.collide(self.model(u, ins), self.model(j, ins), inv @ self.t[j]):
                return j
        return -1

    def _corners(self, u: int) -> np.ndarray:
        """(8, 3) corners of part u's inset box at its final pose (world, LDU)."""
        lo, hi = self.lo[u], self.hi[u]
        return np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])

    def _box_at(self, u: int, pose: np.ndarray):
        """World box (lo, hi) of part u's inset box moved from its final pose to ``pose``."""
        corners = self._corners(u)
        d = pose @ self.inv[u]
        c = corners @ d[:3, :3].T + d[:3, 3]
        return c.min(axis=0), c.max(axis=0)

    def _near(self, lo, hi, alive: np.ndarray, u: int) -> np.ndarray:
        ok = alive & self.usable & np.all(self.lo < hi, axis=1) & np.all(self.hi > lo, axis=1)
        ok[u] = False
        return np.flatnonzero(ok)

    def turn_in(self, u: int, alive: np.ndarray, met: set | None = None):
        """Put part u in by turning it on its hinge: ``(name, straight direction, turn)`` or None.

        A part mated through a click hinge (a canopy on its hinge plate) is
        clicked on with the hinge open and then turned shut. For each hinge
        mate j and each opening angle (:data:`TURN_ANGLES`, both ways about
        the hinge axis): the part, turned by that angle about the hinge axis
        through the connector's origin, must come in straight along one of
        its candidate directions (sampled every <= 1 LDU over the stretch where
        its box meets the others') and then turn shut (sampled so that no
        corner of its box moves more than 1 LDU between samples) without
        meeting any live part other than j (the hinge's fingers click over
        j's, a snap fit). ``turn`` is ``(axis, pivot, degrees)`` (world).
        ``met`` collects the parts that stopped a try (to know when to try again).
        """
        met = set() if met is None else met
        box = self._corners(u)
        for (a, j), joints in self.hinges.items():
            if a != u or not alive[j]:
                continue
            for axis, pivot in joints:
                radius = float(np.linalg.norm(np.cross(box - pivot, axis), axis=1).max())
                for deg in self.opt.turn_angles:
                    n = max(2, int(np.ceil(np.radians(abs(deg)) * max(radius, 1.0) / self.opt.sample_step)) + 1)
                    poses = [_turned(self.t[u], axis, pivot, deg * (1 - k / (n - 1))) for k in range(n - 1)]
                    lo, hi = self._box_at(u, poses[0])
                    for q in poses[1:]:
                        b0, b1 = self._box_at(u, q)
                        lo, hi = np.minimum(lo, b0), np.maximum(hi, b1)
                    others = [x for x in self._near(lo, hi, alive, u).tolist() if x != j and (u, x) not in self.snap]
                    hit = next((x for q in poses for x in [self._meets(u, q, others)] if x >= 0), -1)
                    if hit >= 0:
                        met.add(hit)
                        continue
                    for name, dv in self.directions(u):
                        hit = self._straight_clear(u, poses[0], dv, alive, j)
                        if hit < 0:
                            return (f"{name} turned {deg:+d} deg on its hinge", dv,
                                    (tuple(float(x) for x in axis), tuple(float(x) for x in pivot), float(deg)))
                        met.add(hit)
        return None

    def turn_group_in(self, parts: list, h: int, m: int, alive: np.ndarray):
        """Turn a group of parts in on the click hinge of its part h with live part m (outside the group).

        As :meth:`turn_in` for the whole group moving rigidly: opened by one of :data:`TURN_ANGLES` about
        the hinge axis, it comes in straight along one of h's candidate directions or a world axis and
        turns shut, no part of it meeting a live part outside it (the hinge pair h-m excepted); both
        motions sampled as in :meth:`turn_in`. Returns ``((name, direction, turn), -1)`` on success, else
        ``(None, blocker)``: the first outside part met (-1 when none in particular).
        """
        rest = alive.copy()
        rest[list(parts)] = False
        blocker = -1
        corners = np.vstack([self._corners(p) for p in parts])
        for axis, pivot in self.hinges.get((h, m), ()):
            radius = float(np.linalg.norm(np.cross(corners - pivot, axis), axis=1).max())
            for deg in self.opt.turn_angles:
                n = max(2, int(np.ceil(np.radians(abs(deg)) * max(radius, 1.0) / self.opt.sample_step)) + 1)
                opened, hit = {}, -1
                for p in parts:
                    poses = [_turned(self.t[p], axis, pivot, deg * (1 - k / (n - 1))) for k in range(n - 1)]
                    opened[p] = poses[0]
                    lo, hi = self._box_at(p, poses[0])
                    for q in poses[1:]:
                        b0, b1 = self._box_at(p, q)
                        lo, hi = np.minimum(lo, b0), np.maximum(hi, b1)
                    others = [x for x in self._near(lo, hi, rest, p).tolist()
                              if not (p == h and x == m) and (p, x) not in self.snap]
                    if others:
                        hit = next((x for q in poses for x in [self._meets(p, q, others)] if x >= 0), -1)
                        if hit >= 0:
                            break
                if hit >= 0:
                    blocker = hit if blocker < 0 else blocker
                    continue
                tried: list = []
                for name, dv in list(self.directions(h)) + list(zip(_DIR_NAMES, DIRECTIONS)):
                    if any(float(dv @ d) > 0.999 for d in tried):
                        continue
                    tried.append(dv)
                    hit = next((x for p in parts
                                for x in [self._straight_clear(p, opened[p], dv, rest, m if p == h else -1)]
                                if x >= 0), -1)
                    if hit < 0:
                        return (f"{name} turned {deg:+d} deg on its hinge", dv,
                                (tuple(float(x) for x in axis), tuple(float(x) for x in pivot), float(deg))), -1
                    blocker = hit if blocker < 0 else blocker
        return None, blocker

    def press_in(self, u, alive, met=None):
        """Put part u in by sliding it in lifted and pressing it down onto its studs: ``(name, slide
        direction, (press direction, lift))`` or None. ``met`` collects the parts that stopped a try."""
        met = set() if met is None else met
        # a try stopped only by parts still in place fails again (more live parts only stop more): kept per
        # build, across the searches that share this geometry (sub-builds, subassemblies tried in hand)
        memo = self._press_fail
        old = memo.get(u)
        if old is not None and all(alive[x] and (u, x) not in self.snap for x in old):
            met |= old
            return None
        got = self._press_in(u, alive, met)
        if got is None:
            memo[u] = set(met)
        return got

    def _press_in(self, u, alive, met):
        dirs = self.directions(u)
        n2, d2 = dirs[0]
        for s in self.opt.press_lifts:
            # the press: from s LDU above straight along d2 into place (sampled every <= ``sample_step``)
            hit = -1
            n = int(np.ceil(s / self.opt.sample_step))
            for k in range(n + 1):
                q = self.t[u].copy()
                q[:3, 3] -= d2 * (s * k / n)
                b0, b1 = self._box_at(u, q)
                near = [x for x in self._near(b0, b1, alive, u).tolist() if (u, x) not in self.snap]
                if near:
                    hit = self._meets(u, q, near)
                    if hit >= 0:
                        break
            if hit >= 0:
                met.add(hit)
                break  # a higher lift passes the same poses
            lifted = self.t[u].copy()
            lifted[:3, 3] -= d2 * s
            for name, dv in dirs[1:]:
                if abs(float(dv @ d2)) > 1e-6:
                    continue
                hit = self._straight_clear(u, lifted, dv, alive, -1)
                if hit < 0:
                    return (f"{name} then pressed {n2} {s:g} LDU", dv, (tuple(float(x) for x in d2), float(s)))
                met.add(hit)
        return None

    def _straight_clear(self, u: int, pose: np.ndarray, dv: np.ndarray, alive: np.ndarray, mate: int) -> int:
        """The first live part (not ``mate``) part u meets coming in along unit vector dv to world ``pose``,
        or -1 when the way is clear (sampled every :data:`SAMPLE_STEP` LDU while the boxes can meet)."""
        lo, hi = self._box_at(u, pose)
        slo, shi = lo.copy(), hi.copy()
        slo[dv > 1e-9] = -np.inf
        shi[dv < -1e-9] = np.inf
        others = [x for x in self._near(slo, shi, alive, u).tolist() if x != mate and (u, x) not in self.snap]
        far = 0.0
        for x in others:
            s_hi = np.inf
            for ax in range(3):
                if abs(dv[ax]) < 1e-9:
                    continue
                e1, e2 = (lo[ax] - self.hi[x, ax]) / dv[ax], (hi[ax] - self.lo[x, ax]) / dv[ax]
                s_hi = min(s_hi, max(e1, e2))
            far = max(far, s_hi if np.isfinite(s_hi) else 0.0)
        q = pose.copy()
        for k in range(int(np.ceil(far / self.opt.sample_step)) + 1):
            q[:3, 3] = pose[:3, 3] - dv * (k * self.opt.sample_step)
            b0, b1 = self._box_at(u, q)
            near = [x for x in others if np.all(self.lo[x] < b1) and np.all(self.hi[x] > b0)]
            if near:
                hit = self._meets(u, q, near)
                if hit >= 0:
                    return hit
        return -1
