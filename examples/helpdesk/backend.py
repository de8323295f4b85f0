"""The in-memory back office the help-desk tools act on: real effects, errors for bad input.

Every tool returns a JSON-able dict; a bad argument, or a change the record does not allow
(unlocking an account that is not locked, closing a closed ticket), raises `ToolError`, which
the agent hands back to the model as the tool's result ("error: ..."), as a real API answers 4xx.
Dates are YYYY-MM-DD only: the back office does not read "next Monday".
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from examples.helpdesk import data

EMAIL = re.compile(r"^[\w.+-]+@[\w-]+(\.[\w-]+)+$")
PRIORITIES = ("low", "medium", "high", "urgent")
RESOLUTIONS = ("fixed", "workaround", "duplicate", "no_response", "not_a_fault")
TICKET_STATUSES = ("open", "in_progress", "resolved", "closed")


# tools that only read; a search's free text is the model's own wording, so only its name counts
READS = {
    "find_user": (),
    "search_kb": (),
    "get_user": ("username",),
    "list_devices": ("username",),
    "get_device": ("asset_tag",),
    "get_ticket": ("ticket_id",),
    "search_tickets": ("requester",),
    "check_licence": ("product",),
    "list_group_members": ("group",),
    "get_on_call": ("team", "date"),
}


def read_key(name: str, arguments: dict[str, Any]) -> str:
    """'get_ticket INC-1004': which read, of what (case and spaces aside)."""
    return " ".join([name, *(str(arguments.get(k, "")).strip().upper() for k in READS[name])])


class ToolError(Exception):
    """A call the back office refuses; its message is what the model reads."""


@dataclass
class Backend:
    """The company's back office; `state()` is what a task is checked on."""

    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    devices: dict[str, dict[str, Any]] = field(default_factory=dict)
    tickets: dict[str, dict[str, Any]] = field(default_factory=dict)
    licences: dict[str, dict[str, Any]] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)
    next_ticket: int = 2001
    looked_up: set[str] = field(default_factory=set)  # the reads that answered, so a check sees them

    def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        from examples.helpdesk.operations import TOOLS  # the operations use this module's records

        tool = TOOLS.get(name)
        if tool is None:
            raise ToolError(f"unknown tool {name!r}")
        try:
            result = tool(self, **arguments)
        except TypeError as exc:  # missing or unexpected argument names
            raise ToolError(f"bad arguments for {name}: {exc}") from None
        if name in READS:
            self.looked_up.add(read_key(name, arguments))
        return result

    def state(self) -> dict[str, Any]:
        """What a task is checked on: every record, and which reads were made."""
        return copy.deepcopy(
            {
                "users": self.users,
                "devices": self.devices,
                "tickets": self.tickets,
                "licences": self.licences,
                "groups": self.groups,
                "looked_up": sorted(self.looked_up),
            }
        )

    def user(self, username: Any) -> dict[str, Any]:
        key = str(username).strip().lower()
        if key not in self.users:
            raise ToolError(f"no user {username!r}; find_user looks people up by name")
        return self.users[key]

    def active_user(self, username: Any) -> dict[str, Any]:
        record = self.user(username)
        if record["status"] == "disabled":
            raise ToolError(f"the account {record['username']} is disabled")
        return record

    def device(self, asset_tag: Any) -> dict[str, Any]:
        key = str(asset_tag).strip().upper()
        if key not in self.devices:
            raise ToolError(f"no device with asset tag {asset_tag!r}")
        return self.devices[key]

    def ticket(self, ticket_id: Any) -> dict[str, Any]:
        key = str(ticket_id).strip().upper()
        if key not in self.tickets:
            raise ToolError(f"ticket {ticket_id!r} not found")
        return self.tickets[key]

    def licence(self, product: Any) -> dict[str, Any]:
        found = [v for k, v in self.licences.items() if k.lower() == str(product).strip().lower()]
        if not found:
            raise ToolError(f"no licence {product!r}; we license {', '.join(self.licences)}")
        return found[0]

    def group(self, group: Any) -> list[str]:
        key = str(group).strip().lower()
        if key not in self.groups:
            raise ToolError(f"no access group {group!r}; groups: {', '.join(self.groups)}")
        return self.groups[key]


def fresh_backend() -> Backend:
    """The back office as every task finds it."""
    b = Backend()
    for username, (name, department) in data.PEOPLE.items():
        status = "disabled" if username in data.DISABLED else "active"
        b.users[username] = {
            "username": username,
            "name": name,
            "email": data.email_of(username),
            "department": department,
            "status": "locked" if username in data.LOCKED else status,
            "password_reset": False,
            "mfa": "enrolled",
            "vpn_until": data.VPN.get(username),
            "mail_forward_to": None,
            "mailbox_quota_gb": 50,
            "out_of_office": None,
        }
        b.devices[data.laptop_of(username)] = _device(data.laptop_of(username), "laptop", username)
        b.devices[data.phone_of(username)] = _device(data.phone_of(username), "phone", username)
    for tag in data.SPARE_LAPTOPS:
        b.devices[tag] = _device(tag, "laptop", None)
    for ticket_id, requester, summary, priority, status, assignee in data.TICKETS:
        b.tickets[ticket_id] = _ticket(ticket_id, requester, summary, priority, status, assignee)
    for product, (seats, holders) in data.LICENCES.items():
        b.licences[product] = {"product": product, "seats": seats, "holders": list(holders)}
    b.groups = {g: [] for g in data.GROUPS}
    for username, (_, department) in data.PEOPLE.items():
        for g in (*data.DEPARTMENT_GROUPS[department], "all-staff"):
            b.groups[g].append(username)
    return b


def _device(tag: str, kind: str, owner: str | None) -> dict[str, Any]:
    status = "active" if owner else "in_stock"
    return {"asset_tag": tag, "kind": kind, "owner": owner, "status": status, "software": []}


def _ticket(
    ticket_id: str, requester: str, summary: str, priority: str, status: str, assignee: str | None
) -> dict[str, Any]:
    return {
        "ticket_id": ticket_id,
        "requester": requester,
        "summary": summary,
        "priority": priority,
        "status": status,
        "assignee": assignee,
        "resolution": None,
        "notes": [],
    }


def iso_day(value: Any, what: str) -> date:
    """A date the tools accept: YYYY-MM-DD, nothing else."""
    text = str(value).strip()
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        raise ToolError(f"{what} must be a date as YYYY-MM-DD, got {value!r}")
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ToolError(f"no such date: {value!r}") from None


def one_of(value: Any, allowed: tuple[str, ...], what: str) -> str:
    text = str(value).strip().lower()
    if text not in allowed:
        raise ToolError(f"{what} must be one of {', '.join(allowed)}, got {value!r}")
    return text


def whole(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise ToolError(f"{what} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise ToolError(f"{what} must be between {low} and {high}, got {value}")
    return int(value)


def public(user: dict[str, Any]) -> dict[str, Any]:
    return {k: user[k] for k in ("username", "name", "email", "department", "status")}
