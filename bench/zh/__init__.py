"""The Chinese development set: BFCL live_* requests written in Chinese by hand, and its bench."""
