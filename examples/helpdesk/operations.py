"""The help desk's operations, one function a tool: what each does to the back office."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

from examples.helpdesk import data
from examples.helpdesk.backend import (
    EMAIL,
    PRIORITIES,
    RESOLUTIONS,
    TICKET_STATUSES,
    Backend,
    ToolError,
    iso_day,
    one_of,
    public,
    whole,
)

# accounts


def find_user(b: Backend, query: str) -> dict[str, Any]:
    text = str(query).strip().lower()
    if len(text) < 2:
        raise ToolError("give at least two letters of a name, username or email")
    found = [
        public(u)
        for u in b.users.values()
        if any(text in str(u[k]).lower() for k in ("name", "username", "email"))
    ]
    return {"query": query, "users": found}


def get_user(b: Backend, username: str) -> dict[str, Any]:
    user = b.user(username)
    groups = [g for g, members in b.groups.items() if user["username"] in members]
    licences = [p for p, lic in b.licences.items() if user["username"] in lic["holders"]]
    return {**user, "groups": groups, "licences": licences}


def unlock_account(b: Backend, username: str) -> dict[str, Any]:
    user = b.user(username)
    if user["status"] != "locked":
        raise ToolError(f"the account {user['username']} is {user['status']}, not locked")
    user["status"] = "active"
    return {"username": user["username"], "status": "active"}


def reset_password(b: Backend, username: str) -> dict[str, Any]:
    user = b.active_user(username)
    user["password_reset"] = True
    return {"username": user["username"], "temporary_password_sent_to": user["email"]}


def reset_mfa(b: Backend, username: str) -> dict[str, Any]:
    user = b.active_user(username)
    user["mfa"] = "re-enrol"
    return {"username": user["username"], "mfa": "re-enrol at next sign-in"}


def disable_account(b: Backend, username: str) -> dict[str, Any]:
    user = b.active_user(username)
    user["status"] = "disabled"
    return {"username": user["username"], "status": "disabled"}


def enable_account(b: Backend, username: str) -> dict[str, Any]:
    user = b.user(username)
    if user["status"] != "disabled":
        raise ToolError(f"the account {user['username']} is {user['status']}, not disabled")
    user["status"] = "active"
    return {"username": user["username"], "status": "active"}


# devices


def list_devices(b: Backend, username: str) -> dict[str, Any]:
    owner = b.user(username)["username"]
    return {"username": owner, "devices": [d for d in b.devices.values() if d["owner"] == owner]}


def get_device(b: Backend, asset_tag: str) -> dict[str, Any]:
    return dict(b.device(asset_tag))


def assign_device(b: Backend, asset_tag: str, username: str) -> dict[str, Any]:
    device, user = b.device(asset_tag), b.active_user(username)
    if device["status"] == "lost":
        raise ToolError(f"{device['asset_tag']} is reported lost")
    device["owner"], device["status"] = user["username"], "active"
    return {"asset_tag": device["asset_tag"], "owner": user["username"]}


def report_lost_device(b: Backend, asset_tag: str) -> dict[str, Any]:
    device = b.device(asset_tag)
    if device["status"] == "lost":
        raise ToolError(f"{device['asset_tag']} is already reported lost")
    device["status"] = "lost"
    return {"asset_tag": device["asset_tag"], "status": "lost", "remote_wipe": "queued"}


def install_software(b: Backend, asset_tag: str, package: str) -> dict[str, Any]:
    device = b.device(asset_tag)
    name = next((s for s in data.SOFTWARE if s.lower() == str(package).strip().lower()), None)
    if name is None:
        raise ToolError(f"{package!r} is not in the software catalogue: {', '.join(data.SOFTWARE)}")
    if device["kind"] != "laptop" or device["status"] != "active":
        raise ToolError(f"{device['asset_tag']} is not an active laptop")
    if name in device["software"]:
        raise ToolError(f"{name} is already installed on {device['asset_tag']}")
    device["software"].append(name)
    return {"asset_tag": device["asset_tag"], "installed": name}


# tickets


def create_ticket(b: Backend, requester: str, summary: str, priority: str) -> dict[str, Any]:
    user = b.user(requester)
    text = " ".join(str(summary).split())
    if not 3 <= len(text) <= 120:
        raise ToolError("a summary is 3 to 120 characters")
    ticket_id = f"INC-{b.next_ticket}"
    b.next_ticket += 1
    b.tickets[ticket_id] = {
        "ticket_id": ticket_id,
        "requester": user["username"],
        "summary": text,
        "priority": one_of(priority, PRIORITIES, "priority"),
        "status": "open",
        "assignee": None,
        "resolution": None,
        "notes": [],
    }
    return dict(b.tickets[ticket_id])


def get_ticket(b: Backend, ticket_id: str) -> dict[str, Any]:
    return dict(b.ticket(ticket_id))


def search_tickets(b: Backend, requester: str, status: str = "any") -> dict[str, Any]:
    who = b.user(requester)["username"]
    wanted = one_of(status, (*TICKET_STATUSES, "any"), "status")
    found = [
        {k: t[k] for k in ("ticket_id", "summary", "status", "priority")}
        for t in b.tickets.values()
        if t["requester"] == who and wanted in ("any", t["status"])
    ]
    return {"requester": who, "status": wanted, "tickets": found}


def assign_ticket(b: Backend, ticket_id: str, assignee: str) -> dict[str, Any]:
    ticket, tech = b.ticket(ticket_id), b.active_user(assignee)
    if tech["department"] != "IT":
        raise ToolError(f"{tech['username']} is not an IT technician")
    if ticket["status"] == "closed":
        raise ToolError(f"{ticket['ticket_id']} is closed; reopen it first")
    ticket["assignee"] = tech["username"]
    if ticket["status"] == "open":
        ticket["status"] = "in_progress"
    return {"ticket_id": ticket["ticket_id"], "assignee": tech["username"], "status": ticket["status"]}


def add_ticket_note(b: Backend, ticket_id: str, note: str) -> dict[str, Any]:
    ticket = b.ticket(ticket_id)
    text = " ".join(str(note).split())
    if not text:
        raise ToolError("the note is empty")
    ticket["notes"].append(text)
    return {"ticket_id": ticket["ticket_id"], "notes": len(ticket["notes"])}


def set_ticket_priority(b: Backend, ticket_id: str, priority: str) -> dict[str, Any]:
    ticket = b.ticket(ticket_id)
    if ticket["status"] == "closed":
        raise ToolError(f"{ticket['ticket_id']} is closed")
    ticket["priority"] = one_of(priority, PRIORITIES, "priority")
    return {"ticket_id": ticket["ticket_id"], "priority": ticket["priority"]}


def close_ticket(b: Backend, ticket_id: str, resolution: str) -> dict[str, Any]:
    ticket = b.ticket(ticket_id)
    if ticket["status"] == "closed":
        raise ToolError(f"{ticket['ticket_id']} is already closed")
    ticket["resolution"] = one_of(resolution, RESOLUTIONS, "resolution")
    ticket["status"] = "closed"
    return {"ticket_id": ticket["ticket_id"], "status": "closed", "resolution": ticket["resolution"]}


def reopen_ticket(b: Backend, ticket_id: str) -> dict[str, Any]:
    ticket = b.ticket(ticket_id)
    if ticket["status"] not in ("resolved", "closed"):
        raise ToolError(f"{ticket['ticket_id']} is {ticket['status']}, not resolved or closed")
    ticket["status"], ticket["resolution"] = "open", None
    return {"ticket_id": ticket["ticket_id"], "status": "open"}


# licences and access


def check_licence(b: Backend, product: str) -> dict[str, Any]:
    lic = b.licence(product)
    return {"product": lic["product"], "seats": lic["seats"], "free": lic["seats"] - len(lic["holders"])}


def assign_licence(b: Backend, username: str, product: str) -> dict[str, Any]:
    lic, user = b.licence(product), b.active_user(username)
    if user["username"] in lic["holders"]:
        raise ToolError(f"{user['username']} already has a {lic['product']} licence")
    if len(lic["holders"]) >= lic["seats"]:
        raise ToolError(f"no free {lic['product']} seat: all {lic['seats']} are in use")
    lic["holders"].append(user["username"])
    return {
        "product": lic["product"],
        "username": user["username"],
        "free": lic["seats"] - len(lic["holders"]),
    }


def revoke_licence(b: Backend, username: str, product: str) -> dict[str, Any]:
    lic, user = b.licence(product), b.user(username)
    if user["username"] not in lic["holders"]:
        raise ToolError(f"{user['username']} has no {lic['product']} licence")
    lic["holders"].remove(user["username"])
    return {
        "product": lic["product"],
        "username": user["username"],
        "free": lic["seats"] - len(lic["holders"]),
    }


def add_to_group(b: Backend, username: str, group: str) -> dict[str, Any]:
    members, user = b.group(group), b.active_user(username)
    if user["username"] in members:
        raise ToolError(f"{user['username']} is already in {str(group).lower()}")
    members.append(user["username"])
    return {"group": str(group).strip().lower(), "added": user["username"]}


def remove_from_group(b: Backend, username: str, group: str) -> dict[str, Any]:
    members, user = b.group(group), b.user(username)
    if user["username"] not in members:
        raise ToolError(f"{user['username']} is not in {str(group).lower()}")
    members.remove(user["username"])
    return {"group": str(group).strip().lower(), "removed": user["username"]}


def list_group_members(b: Backend, group: str) -> dict[str, Any]:
    return {"group": str(group).strip().lower(), "members": list(b.group(group))}


def grant_vpn_access(b: Backend, username: str, until: str) -> dict[str, Any]:
    user, day = b.active_user(username), iso_day(until, "until")
    if not data.TODAY < day <= data.TODAY + timedelta(days=180):
        raise ToolError(f"VPN access runs from tomorrow up to 180 days, not until {day.isoformat()}")
    user["vpn_until"] = day.isoformat()
    return {"username": user["username"], "vpn_until": user["vpn_until"]}


def revoke_vpn_access(b: Backend, username: str) -> dict[str, Any]:
    user = b.user(username)
    if user["vpn_until"] is None:
        raise ToolError(f"{user['username']} has no VPN access")
    user["vpn_until"] = None
    return {"username": user["username"], "vpn": "revoked"}


# mail


def set_mail_forwarding(b: Backend, username: str, forward_to: str) -> dict[str, Any]:
    user = b.active_user(username)
    address = str(forward_to).strip().lower()
    if not EMAIL.match(address):
        raise ToolError(f"{forward_to!r} is not an email address")
    user["mail_forward_to"] = address
    return {"username": user["username"], "forward_to": address}


def set_mailbox_quota(b: Backend, username: str, quota_gb: int) -> dict[str, Any]:
    user = b.active_user(username)
    quota = whole(quota_gb, "quota_gb", 10, 200)
    if quota <= user["mailbox_quota_gb"]:
        raise ToolError(f"the quota is {user['mailbox_quota_gb']} GB already; give a larger one")
    user["mailbox_quota_gb"] = quota
    return {"username": user["username"], "mailbox_quota_gb": quota}


def set_out_of_office(b: Backend, username: str, start: str, end: str) -> dict[str, Any]:
    user = b.active_user(username)
    first, last = iso_day(start, "start"), iso_day(end, "end")
    if first < data.TODAY or last < first:
        raise ToolError("an out-of-office runs from today or later and ends after it starts")
    user["out_of_office"] = {"start": first.isoformat(), "end": last.isoformat()}
    return {"username": user["username"], **user["out_of_office"]}


# on call and knowledge


def get_on_call(b: Backend, team: str, date: str) -> dict[str, Any]:
    name = one_of(team, data.ON_CALL_TEAMS, "team")
    day = iso_day(date, "date")
    tech = b.users[data.on_call(name, day)]
    return {"team": name, "date": day.isoformat(), "on_call": tech["name"], "username": tech["username"]}


def search_kb(b: Backend, query: str) -> dict[str, Any]:
    words = {w for w in str(query).lower().replace("-", " ").split() if len(w) > 2}
    if not words:
        raise ToolError("give a few words to search for")
    found = [
        {"id": i, "title": title}
        for i, title, keys in data.KB_ARTICLES
        if words & set(f"{title} {keys}".lower().replace("-", " ").split())
    ]
    return {"query": query, "articles": found}


TOOLS: dict[str, Callable[..., dict[str, Any]]] = {
    f.__name__: f
    for f in (
        find_user,
        get_user,
        unlock_account,
        reset_password,
        reset_mfa,
        disable_account,
        enable_account,
        list_devices,
        get_device,
        assign_device,
        report_lost_device,
        install_software,
        create_ticket,
        get_ticket,
        search_tickets,
        assign_ticket,
        add_ticket_note,
        set_ticket_priority,
        close_ticket,
        reopen_ticket,
        check_licence,
        assign_licence,
        revoke_licence,
        add_to_group,
        remove_from_group,
        list_group_members,
        grant_vpn_access,
        revoke_vpn_access,
        set_mail_forwarding,
        set_mailbox_quota,
        set_out_of_office,
        get_on_call,
        search_kb,
    )
}
