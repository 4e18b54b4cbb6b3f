"""The evidence report."""
