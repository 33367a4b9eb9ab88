"""The prompt's worked connection examples are real code that builds valid, connected models (issue 17, item 9)."""

from __future__ import annotations

import inspect

import pytest

from brickwright.agent.examples import EXAMPLES, examples_source
from brickwright.agent.prompt import system_prompt


@pytest.mark.parametrize("fn", EXAMPLES, ids=lambda f: f.__name__)
def test_example_is_valid_and_connected(fn):
    build = fn()
    assert len(build.flattened_placements) >= 2
    assert not build.colliding_placements and not build.floating_placements
    assert build.num_connected_components == 1


def test_prompt_shows_the_examples_source():
    prompt = system_prompt("REF")
    for fn in EXAMPLES:
        assert inspect.getsource(fn).strip() in prompt
    assert examples_source() in prompt
