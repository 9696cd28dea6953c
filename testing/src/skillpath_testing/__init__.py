"""skillpath-testing: the conformance kit for skill providers.

A provider's test module subclasses :class:`ProviderConformance`, names its
provider id, priority and distribution, and lists the roots the provider
scans for a fake home and project; pytest then runs the whole suite against
real files in temp dirs and the provider's real installed entry point.
"""

from __future__ import annotations

from skillpath_testing.conformance import (
    ENTRY_POINT_GROUP,
    ENVIRONMENT_VARS,
    Layout,
    ProviderConformance,
    Root,
    discover,
    isolate_environment,
    load,
    make_layout,
    plugin_host,
    write_skill,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "ENVIRONMENT_VARS",
    "Layout",
    "ProviderConformance",
    "Root",
    "discover",
    "isolate_environment",
    "load",
    "make_layout",
    "plugin_host",
    "write_skill",
]
