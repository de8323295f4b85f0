"""Policies: one YAML file per task type, loaded into validated models."""

from shadowswitch.policy.loader import DEFAULTS_FILE, load_policies
from shadowswitch.policy.models import Action, Defaults, Engine, Policy, PolicySet, Upstream

__all__ = [
    "DEFAULTS_FILE",
    "Action",
    "Defaults",
    "Engine",
    "Policy",
    "PolicySet",
    "Upstream",
    "load_policies",
]
