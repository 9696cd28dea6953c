"""ACME's skill pack: each sub-directory holding a ``SKILL.md`` is one skill.

This package has no code of its own; skillpath's ``packs`` provider reads the
skill folders through :mod:`importlib.resources` (entry point
``skillpath.packs: acme = "acme_skills"``).
"""
