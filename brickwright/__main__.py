"""``python -m brickwright``: the CLI."""

from .cli import main

main()
