"""One verdict (issue 19, step 5): the SDK's ``LegoBuild.is_valid`` is the ValidationReport's ``valid``, the
verdict ``brickwright validate``, the agent's judge and ``instructions`` give (``tests/test_cli.py``
``test_instructions_give_the_verdict_validate_gives`` checks the CLI side)."""


def test_sdk_verdict_is_the_reports():
    """``LegoBuild.is_valid`` is ValidationReport.valid: an unknown part id or an empty build is not valid,
    though nothing collides or floats (the older definition, "nothing collides, nothing floats", said True)."""
    from bricklayer import Element, LegoBuild
    from bricklayer.validate import validation_report

    b = LegoBuild()
    assert not b.is_valid()  # an empty build is not a model
    b.add(Element("3001"), (0, 0, 0))
    assert b.is_valid()
    b.add_raw(Element.unchecked("zz99"), None)  # no such part in the LDraw library
    assert not b.colliding_placements and not b.floating_placements
    rep = validation_report(b)
    assert not b.is_valid() and not rep.valid and [r["part_id"] for r in rep.unknown_parts] == ["zz99"]
