"""``python -m bricklayer``: print the generated API reference."""

import sys

from .reference import api_reference

if __name__ == "__main__":
    sys.stdout.write(api_reference(full="--full" in sys.argv))
