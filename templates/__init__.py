"""Prose templates the core renders (SLS documents), shipped as package data (templates/<folder>/*.j2); a target's
own templates live in its package (qosc/targets/<target>/templates/, e.g. linux-tc's shell wrappers)."""
