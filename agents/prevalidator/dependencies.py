"""Dependency conflicts: a set of pinned distributions resolved against the installed
distributions' own metadata (their Requires-Dist), with `packaging` and `importlib.metadata`.

Shared by the pre-validator (a candidate's declared requirements against what is installed)
and by `pipesmith export` (the bundle's pinned requirements.txt against itself). Each
conflict names the pair (who requires, what is pinned) and the versions that would satisfy
every requirement on that distribution in the set.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib.metadata import PackageNotFoundError, distributions, requires

from packaging.markers import default_environment
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version
from pydantic import BaseModel, ConfigDict


class Conflict(BaseModel):
    """`required_by` asks for `requirement`, but `name` is pinned (or installed) at `version`;
    `satisfying` is the specifier every requirer in the set agrees on."""

    model_config = ConfigDict(frozen=True)

    required_by: str  # "scikit-learn 1.9.1", or "the code"
    requirement: str  # e.g. "numpy>=1.22"
    name: str
    version: str
    satisfying: str  # e.g. "numpy>=1.22,<2"

    @property
    def message(self) -> str:
        return (f"{self.required_by} requires {self.requirement} but {self.name} {self.version} "
                f"is pinned; versions satisfying both: {self.satisfying}")


def installed_versions() -> dict[str, str]:
    """Canonical distribution name -> installed version, for this interpreter."""
    found: dict[str, str] = {}
    for dist in distributions():
        name = dist.metadata["Name"]
        if name:
            found.setdefault(canonicalize_name(name), dist.version)
    return found


def _applies(requirement: Requirement) -> bool:
    """Requirements for this platform without extras (an extra is not installed by a pin)."""
    if requirement.marker is None:
        return True
    try:
        return requirement.marker.evaluate(default_environment() | {"extra": ""})
    except Exception:  # an unknown marker variable: be conservative and skip it
        return False


def requirements_of(dist: str) -> list[Requirement]:
    try:
        texts = requires(dist) or []
    except PackageNotFoundError:
        return []
    found = []
    for text in texts:
        try:
            requirement = Requirement(text)
        except InvalidRequirement:
            continue
        if _applies(requirement):
            found.append(requirement)
    return found


def _contains(specifier: SpecifierSet, version: str) -> bool:
    try:
        return specifier.contains(Version(version), prereleases=True)
    except InvalidVersion:
        return True  # a version packaging cannot read is not ours to judge


def constraints_on(name: str, versions: Mapping[str, str],
                   known: Mapping[str, list[Requirement]] | None = None,
                   ) -> list[tuple[str, Requirement]]:
    """(requirer "dist version", requirement) for every distribution in `versions` that
    requires `name`; `known`: each distribution's requirements, when already read."""
    target = canonicalize_name(name)
    return [(f"{dist} {version}", req) for dist, version in versions.items()
            for req in (known[dist] if known is not None else requirements_of(dist))
            if canonicalize_name(req.name) == target]


def _satisfying(name: str, specifiers: list[SpecifierSet]) -> str:
    combined = SpecifierSet()
    for specifier in specifiers:
        combined &= specifier
    return f"{name}{combined}" if str(combined) else f"any {name}"


def conflicts(pins: Mapping[str, str]) -> list[Conflict]:
    """Every pair in `pins` (distribution -> version) where one pinned distribution's
    metadata requires another at a version the pin does not satisfy."""
    canonical = {canonicalize_name(name): version for name, version in pins.items()}
    # each pin's metadata read once, not once per pin it might constrain (n² reads took
    # seconds of every export)
    known = {dist: requirements_of(dist) for dist in canonical}
    found = []
    for name, version in sorted(canonical.items()):
        constraints = constraints_on(name, canonical, known)
        satisfying = _satisfying(name, [req.specifier for _, req in constraints])
        for required_by, requirement in constraints:
            if not _contains(requirement.specifier, version):
                found.append(Conflict(required_by=required_by, requirement=str(requirement),
                                      name=name, version=version, satisfying=satisfying))
    return found


def requirement_conflict(requirement: Requirement, installed: str,
                         versions: Mapping[str, str] | None = None) -> Conflict | None:
    """The code's `requirement` against the installed version of its distribution; the
    satisfying versions also honour what the other installed distributions require of it."""
    if not requirement.specifier or _contains(requirement.specifier, installed):
        return None
    others = constraints_on(requirement.name, versions if versions is not None else {})
    satisfying = _satisfying(requirement.name,
                             [requirement.specifier] + [req.specifier for _, req in others])
    return Conflict(required_by="the code", requirement=str(requirement),
                    name=requirement.name, version=installed, satisfying=satisfying)
