"""Jinja2 templates of the targets, shipped as package data (templates/<target>/*.j2)."""
