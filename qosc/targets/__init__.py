"""Targets: one module per output dialect, discovered by the registry."""
