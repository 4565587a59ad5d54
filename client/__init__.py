"""See the package docstrings."""
