"""What a reload changes: task types added, changed and removed between two policy sets."""

from __future__ import annotations

from dataclasses import dataclass, field

from shadowswitch.policy.models import PolicySet


@dataclass
class PolicyChanges:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    defaults_changed: bool = False

    def summary(self) -> str:
        parts = [f"{name} {', '.join(tasks)}" for name, tasks in self._named() if tasks]
        if self.defaults_changed:
            parts.append("defaults changed")
        return "; ".join(parts) or "no change"

    def _named(self) -> list[tuple[str, list[str]]]:
        return [("added", self.added), ("changed", self.changed), ("removed", self.removed)]


def diff(old: PolicySet, new: PolicySet) -> PolicyChanges:
    before, after = old.policies, new.policies
    return PolicyChanges(
        added=sorted(after.keys() - before.keys()),
        changed=sorted(t for t in after.keys() & before.keys() if after[t] != before[t]),
        removed=sorted(before.keys() - after.keys()),
        defaults_changed=old.defaults != new.defaults,
    )
