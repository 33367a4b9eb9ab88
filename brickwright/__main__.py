"""``python -m brickwright``: the CLI."""

from .cli import app

app()
