"""Hose segment joints (ldraw_data.segments): read from the library's hose drawings, on real parts."""

import numpy as np

from ldraw_data import connectors as C
from ldraw_data.io.model import load_model

SEG = ("segment",)


def _joints(part_id):
    return sorted((c.type, tuple(np.round(c.position, 3)), tuple(np.round(c.axis, 3)))
                  for c in C.part_connectors(part_id, sources=SEG))


def test_hose_link_ball_and_socket_from_751():
    # 751.dat (~Hose Flexible Tube 7L) places the links 754 2.56 LDU apart (y = 3.56, 6.12, ...); 754's
    # hemisphere "4-8sphe" sits at its origin with scale (3,3,3), dome +Y: the ball at 0, the socket where
    # the link 2.56 LDU before it puts its ball
    assert _joints("754") == [("hose_ball", (0.0, 0.0, 0.0), (0.0, 1.0, 0.0)),
                              ("hose_socket", (0.0, -2.56, 0.0), (0.0, 1.0, 0.0))]
    # 756 (centre section): two hemispheres, at y=0 (dome +Y) and y=-2 (y scale -3, dome -Y); nothing holds
    # them but 754 links, so no socket
    assert _joints("756") == [("hose_ball", (0.0, -2.0, 0.0), (0.0, -1.0, 0.0)),
                              ("hose_ball", (0.0, 0.0, 0.0), (0.0, 1.0, 0.0))]
    # 755 (end section) at y=70, turned over; the last link at y=65: its ball 5 LDU into 755's cup
    # (4-4cylc radius 5 from y=0 to 5); 755 keeps its LDCad post
    assert _joints("755") == [("hose_socket", (0.0, 5.0, 0.0), (0.0, -1.0, 0.0))]
    assert "post" in {c.type for c in C.part_connectors("755")}


def test_moved_segment_follows_its_target():
    # 758 is "~Moved to 30527k02"; 30527.dat places 30527k02 every 5.1613 LDU (33.70305, 38.86435, ...)
    # with its local +Y along +X and the hemisphere domed -Y (scale -4)
    want = [("hose_ball", (0.0, 0.0, 0.0), (0.0, -1.0, 0.0)),
            ("hose_socket", (0.0, 5.161, 0.0), (0.0, -1.0, 0.0))]
    assert _joints("30527k02") == want and _joints("758") == want
    assert C.has_connectors("758") and not C.has_connectors("758", sources=("bricknet", "ldcad"))


def test_no_joint_where_the_library_draws_none():
    # chain links have no ball; 65130k02 (strap segment) has hemispheres (rivets) that no segment holds
    for stem in ("30104k02", "209", "65130k02", "3001"):
        assert C.part_connectors(stem, sources=SEG) == ()
    assert C.mate_kind("hose_ball", "hose_socket") == C.JointKind.BALL
    assert C.mate_kind("hose_ball", "towball_socket") is None
    assert C.mate_kind("hose_ball", "hose_ball") is None


def test_hose_of_an_official_model_is_jointed(official_dir):
    # 6285 Black Seas Barracuda draws its hose as 754 links after a 756: every ball lies in the next
    # link's socket, within the ball joint tolerance (TOL.joint_position, 2.1 LDU)
    fm = load_model(official_dir / "6285_Black_Seas_Barracuda.mpd")
    balls, sockets = [], []
    for i, p in enumerate(fm.parts):
        for c in C.part_connectors(p.part_id, sources=SEG):
            w = (np.asarray(p.transform) @ c.frame)[:3, 3]
            (balls if c.type == "hose_ball" else sockets).append((i, w))
    assert len(balls) == 43
    sock = np.array([w for _, w in sockets])
    owner = np.array([i for i, _ in sockets])
    for i, w in balls:
        d = np.linalg.norm(sock - w, axis=1)
        d[owner == i] = np.inf
        assert d.min() <= 2.1


def test_jointed_hose_is_one_flexible_whole_for_the_validator():
    # three 754 links laid as 751 lays them (2.56 LDU apart, ball of each in the socket of the next),
    # floating above a brick: the links mate ball-in-socket (2 ball joints), and a group made only of
    # hose segments is left out of the components, as a single unmated segment is
    from bricklayer import from_ldraw
    from bricklayer.validate.connections import connection_graph

    text = "\n".join(["1 4 0 0 0 1 0 0 0 1 0 0 0 1 3001.dat"] + [
        f"1 0 0 {y} 0 1 0 0 0 1 0 0 0 1 754.dat" for y in (-105.12, -102.56, -100.0)])
    g = connection_graph(from_ldraw(text))
    assert sorted((int(a), int(b)) for a, _, b, _ in g.pairs.tolist()) == [(1, 2), (2, 3)]
    assert set(g.kinds) == {C.JointKind.BALL}
    assert [[p.content.ldraw_id for p in c] for c in g.components] == [["3001"]]
