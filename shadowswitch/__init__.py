"""shadowswitch: move an agent's decision calls onto a small local model that chooses, safely."""

__version__ = "0.1.0"
__all__ = ["__version__"]
