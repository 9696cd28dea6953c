"""ACME's skill pack: each sub-directory holding a ``SKILL.md`` is one skill.

This package has no code of its own; skillweave's ``packs`` provider reads the
skill folders through :mod:`importlib.resources` (entry point
``skillweave.packs: acme = "acme_skills"``).
"""
