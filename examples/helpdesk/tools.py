"""The tools the help-desk agent offers the model, as OpenAI function definitions (33 of them)."""

from __future__ import annotations

from typing import Any

from examples.helpdesk.backend import PRIORITIES, RESOLUTIONS, TICKET_STATUSES
from examples.helpdesk.data import ON_CALL_TEAMS

Param = tuple[str, str] | tuple[str, str, tuple[str, ...]]

USERNAME = ("string", "Username of the account, like jdoe (find_user gives it)")
TICKET = ("string", "Ticket id, like INC-1042")
ASSET = ("string", "Asset tag of the device, like LT-4410 or PH-2203")
PRODUCT = ("string", "Licensed product, like Figma or Adobe Acrobat")
GROUP = ("string", "Access group, like finance-share")
DAY = "Date as YYYY-MM-DD"


def _tool(
    name: str, description: str, params: dict[str, Param], optional: tuple[str, ...] = ()
) -> dict[str, Any]:
    properties: dict[str, Any] = {}
    for key, (kind, about, *choices) in params.items():
        properties[key] = {"type": kind, "description": about}
        if choices:
            properties[key]["enum"] = list(choices[0])
    required = [k for k in params if k not in optional]
    schema = {"type": "object", "properties": properties, "required": required}
    return {"type": "function", "function": {"name": name, "description": description, "parameters": schema}}


TOOLS: list[dict[str, Any]] = [
    _tool(
        "find_user",
        "Find people by name, username or email: usernames and account status",
        {
            "query": ("string", "Part of a name, username or email"),
        },
    ),
    _tool("get_user", "Look up an account: status, groups, licences, VPN, mailbox", {"username": USERNAME}),
    _tool(
        "unlock_account", "Unlock an account locked after too many failed sign-ins", {"username": USERNAME}
    ),
    _tool(
        "reset_password", "Reset a password: a temporary one is mailed to the user", {"username": USERNAME}
    ),
    _tool("reset_mfa", "Reset two-factor sign-in so the user enrols a new phone", {"username": USERNAME}),
    _tool("disable_account", "Disable the account of someone who left", {"username": USERNAME}),
    _tool("enable_account", "Enable a disabled account again", {"username": USERNAME}),
    _tool("list_devices", "List the laptops and phones a user has", {"username": USERNAME}),
    _tool("get_device", "Look up a device by asset tag: kind, owner, status, software", {"asset_tag": ASSET}),
    _tool("assign_device", "Hand a device over to a user", {"asset_tag": ASSET, "username": USERNAME}),
    _tool("report_lost_device", "Report a device lost or stolen; it is wiped remotely", {"asset_tag": ASSET}),
    _tool(
        "install_software",
        "Install a catalogue package on a laptop",
        {
            "asset_tag": ASSET,
            "package": ("string", "Package from the software catalogue, like Zoom"),
        },
    ),
    _tool(
        "create_ticket",
        "Open a new support ticket for a user's problem",
        {
            "requester": USERNAME,
            "summary": ("string", "One line describing the problem"),
            "priority": ("string", "How urgent", PRIORITIES),
        },
    ),
    _tool("get_ticket", "Look up a ticket: summary, status, priority, assignee", {"ticket_id": TICKET}),
    _tool(
        "search_tickets",
        "List a user's tickets, optionally only those in one status",
        {
            "requester": USERNAME,
            "status": ("string", "Only tickets in this status", (*TICKET_STATUSES, "any")),
        },
        optional=("status",),
    ),
    _tool(
        "assign_ticket",
        "Assign a ticket to an IT technician",
        {
            "ticket_id": TICKET,
            "assignee": ("string", "Username of the technician"),
        },
    ),
    _tool("add_ticket_note", "Add a note to a ticket", {"ticket_id": TICKET, "note": ("string", "The note")}),
    _tool(
        "set_ticket_priority",
        "Change a ticket's priority",
        {
            "ticket_id": TICKET,
            "priority": ("string", "New priority", PRIORITIES),
        },
    ),
    _tool(
        "close_ticket",
        "Close a ticket with a resolution",
        {
            "ticket_id": TICKET,
            "resolution": ("string", "How it ended", RESOLUTIONS),
        },
    ),
    _tool("reopen_ticket", "Reopen a resolved or closed ticket", {"ticket_id": TICKET}),
    _tool("check_licence", "How many seats of a licensed product are free", {"product": PRODUCT}),
    _tool(
        "assign_licence",
        "Give a user a seat of a licensed product",
        {"username": USERNAME, "product": PRODUCT},
    ),
    _tool(
        "revoke_licence", "Take a licence seat back from a user", {"username": USERNAME, "product": PRODUCT}
    ),
    _tool("add_to_group", "Add a user to an access group", {"username": USERNAME, "group": GROUP}),
    _tool("remove_from_group", "Remove a user from an access group", {"username": USERNAME, "group": GROUP}),
    _tool("list_group_members", "List the members of an access group", {"group": GROUP}),
    _tool(
        "grant_vpn_access",
        "Give a user VPN access until a day",
        {
            "username": USERNAME,
            "until": ("string", f"Last day of access, {DAY}"),
        },
    ),
    _tool("revoke_vpn_access", "Take a user's VPN access away", {"username": USERNAME}),
    _tool(
        "set_mail_forwarding",
        "Forward a user's mail to another address",
        {
            "username": USERNAME,
            "forward_to": ("string", "Email address to forward to"),
        },
    ),
    _tool(
        "set_mailbox_quota",
        "Raise a user's mailbox quota",
        {
            "username": USERNAME,
            "quota_gb": ("integer", "New quota in GB"),
        },
    ),
    _tool(
        "set_out_of_office",
        "Turn on a user's out-of-office reply between two days",
        {
            "username": USERNAME,
            "start": ("string", f"First day away, {DAY}"),
            "end": ("string", f"Last day away, {DAY}"),
        },
    ),
    _tool(
        "get_on_call",
        "Who is on call for an IT team on a day",
        {
            "team": ("string", "The team", ON_CALL_TEAMS),
            "date": ("string", DAY),
        },
    ),
    _tool(
        "search_kb",
        "Search the knowledge base for how-to articles",
        {
            "query": ("string", "A few keywords"),
        },
    ),
]
