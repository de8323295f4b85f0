"""Tickets: status and notes, closing, assigning, new tickets, reopening, priority, a user's list."""

from __future__ import annotations

from examples.helpdesk.data import PEOPLE
from examples.helpdesk.families.common import Calls, person
from examples.helpdesk.tasks import C, Entity, F, Family

NOTES = {
    "INC-1001": "still flickering after the driver update",
    "INC-1003": "it only crashes when the VPN is on",
    "INC-1004": "the jam is always in tray 2",
    "INC-1006": "the drive was there until Monday",
    "INC-1010": "the laptop is now unplugged and switched off",
    "INC-1013": "scans to my own address fail too",
    "INC-1015": "I need read access only",
    "INC-1018": "the payslip run is on Friday",
}


TICKET_STATUS = Family(
    "ticket_status",
    (
        ("What's the status of {tid}?", 'Please add this note to it: "{note}"'),
        ("Any news on ticket {tid}?", "OK. Note on the ticket please: {note}"),
        ("Can you check {tid} for me", "Add a note to {tid}: {note}"),
        ("Is anyone working on {tid}?", 'Then write in the ticket: "{note}"', "Thanks!"),
    ),
    [{"tid": tid, "note": note} for tid, note in NOTES.items()],
    lambda e: (
        (C("get_ticket", ticket_id=e["tid"]),),
        (C("add_ticket_note", ticket_id=e["tid"], note=e["note"]),),
    ),
)


def _close(e: Entity) -> Calls:
    look = C("get_ticket", ticket_id=e["tid"])
    if e["state"] == "missing":
        return ((F("get_ticket", ticket_id=e["tid"]),),)
    if e["state"] == "closed":  # already closed: the model sees it and says so
        return ((look,),)
    return ((look, C("close_ticket", ticket_id=e["tid"], resolution=e["resolution"])),)


CLOSE = Family(
    "close",
    (
        ("You can close {tid}, {why}.",),
        ("Please close ticket {tid}: {why}.",),
        ("{tid} can be closed, {why}.", "Cheers"),
        ("Close {tid} please, {why}.",),
    ),
    [
        {
            "tid": "INC-1001",
            "why": "it works again after the new cable",
            "resolution": "fixed",
            "state": "open",
        },
        {"tid": "INC-1009", "why": "the fonts are back", "resolution": "fixed", "state": "closed"},
        {
            "tid": "INC-1003",
            "why": "I use the web version for now",
            "resolution": "workaround",
            "state": "open",
        },
        {"tid": "INC-1007", "why": "the headset works fine", "resolution": "fixed", "state": "open"},
        {
            "tid": "INC-1013",
            "why": "it's the same problem as my other ticket",
            "resolution": "duplicate",
            "state": "open",
        },
        {"tid": "INC-1240", "why": "my problem is gone", "resolution": "fixed", "state": "missing"},
        {
            "tid": "INC-1011",
            "why": "it wasn't a fault, I had the wrong URL",
            "resolution": "not_a_fault",
            "state": "open",
        },
        {"tid": "INC-1016", "why": "the new keyboard arrived", "resolution": "fixed", "state": "closed"},
    ],
    _close,
)


ASSIGN = Family(
    "assign",
    (
        ("Can you give {tid} to {tech}?",),
        ("Please assign ticket {tid} to {tech} from IT.",),
        ("{tech} should take {tid}, can you assign it?",),
        ("Route {tid} to {tech} please.", "Perfect, thanks."),
    ),
    [
        {"tid": tid, "tech": PEOPLE[tech][0].split()[0], "username": tech}
        for tid, tech in (
            ("INC-1001", "rweiss"),
            ("INC-1003", "kbauer"),
            ("INC-1004", "sosei"),
            ("INC-1006", "mvarga"),
            ("INC-1010", "kbauer"),
            ("INC-1013", "rweiss"),
            ("INC-1015", "sosei"),
            ("INC-1018", "mvarga"),
        )
    ],
    lambda e: (
        (
            C("get_ticket", ticket_id=e["tid"]),
            C("find_user", query=e["tech"]),
            C("assign_ticket", ticket_id=e["tid"], assignee=e["username"]),
        ),
    ),
)


NEW_TICKET = Family(
    "new_ticket",
    (
        ("Hi, I'm {name}. {problem}. Can you open a ticket? {urgency}",),
        ("{name} here: {problem}. Please log it, {urgency}", "Thanks a lot."),
        ("{problem}. Could you raise a ticket for me ({name})? {urgency}",),
        ("Ticket please for {name}: {problem}. {urgency}",),
    ),
    [
        person(
            "okoval",
            problem="My second monitor stays black",
            summary="Second monitor stays black",
            urgency="No rush.",
            priority="low",
        ),
        person(
            "pnair",
            problem="Outlook asks for my password every five minutes",
            summary="Outlook keeps prompting for password",
            urgency="It's quite annoying.",
            priority="medium",
        ),
        person(
            "rmorales",
            problem="The whole support team can't log in to the phone system",
            summary="Support team cannot log in to phone system",
            urgency="We are all blocked!",
            priority="urgent",
        ),
        person(
            "bnkosi",
            problem="My laptop fan is very loud",
            summary="Laptop fan very loud",
            urgency="Whenever you have time.",
            priority="low",
        ),
        person(
            "lchen",
            problem="I can't open PDFs from the contract portal",
            summary="Cannot open PDFs from contract portal",
            urgency="I have a deadline today.",
            priority="high",
        ),
        person(
            "cdubois",
            problem="The meeting room screen on floor 4 shows no signal",
            summary="Floor 4 meeting room screen shows no signal",
            urgency="Not urgent.",
            priority="low",
        ),
        person(
            "aokafor",
            problem="The build server rejects my SSH key",
            summary="Build server rejects SSH key",
            urgency="It blocks my release.",
            priority="high",
        ),
        person(
            "hlindqvist",
            problem="The HR portal shows someone else's payslip",
            summary="HR portal shows another employee's payslip",
            urgency="This is a data leak, please hurry!",
            priority="urgent",
        ),
    ],
    lambda e: (
        (
            C("find_user", query=e["name"]),
            C("create_ticket", requester=e["username"], summary=e["summary"], priority=e["priority"]),
        ),
    ),
)


def _reopen(e: Entity) -> Calls:
    if e["state"] == "missing":
        return ((F("get_ticket", ticket_id=e["tid"]),),)
    look = C("get_ticket", ticket_id=e["tid"])
    if e["state"] == "open":  # still open: nothing to reopen, the model says so
        return ((look,),)
    return ((look, C("reopen_ticket", ticket_id=e["tid"])),)


REOPEN = Family(
    "reopen",
    (
        ("{tid} is back, the problem returned. Please reopen it.",),
        ("Can you reopen ticket {tid}? It broke again.",),
        ("The issue in {tid} came back this morning.",),
        ("Reopen {tid} please, not fixed after all.",),
    ),
    [
        {"tid": "INC-1007", "state": "resolved"},
        {"tid": "INC-1008", "state": "resolved"},
        {"tid": "INC-1003", "state": "open"},
        {"tid": "INC-1009", "state": "closed"},
        {"tid": "INC-1011", "state": "resolved"},
        {"tid": "INC-1099", "state": "missing"},
        {"tid": "INC-1012", "state": "closed"},
        {"tid": "INC-1014", "state": "resolved"},
    ],
    _reopen,
)


PRIORITY = Family(
    "priority",
    (
        ("Please change the priority of {tid}: {how}.",),
        ("{tid}: {how}.",),
        ("About ticket {tid}, {how}.",),
        ("Can you update {tid}? {how}.",),
    ),
    [
        {"tid": "INC-1001", "how": "raise it to urgent", "priority": "urgent"},
        {"tid": "INC-1003", "how": "make it high priority", "priority": "high"},
        {"tid": "INC-1004", "how": "it can wait, lower it", "priority": "low"},
        {"tid": "INC-1006", "how": "bump it up, the whole team is blocked", "priority": "urgent"},
        {"tid": "INC-1013", "how": "set it to high", "priority": "high"},
        {"tid": "INC-1015", "how": "not so pressing any more, medium is fine", "priority": "medium"},
        {"tid": "INC-1005", "how": "it's blocking the release now", "priority": "high"},
        {"tid": "INC-1018", "how": "lower it to low", "priority": "low"},
    ],
    lambda e: ((C("set_ticket_priority", ticket_id=e["tid"], priority=e["priority"]),),),
)


def _my_tickets(e: Entity) -> Calls:
    status = {"status": e["status"]} if e["status"] else {}  # "all my tickets": the filter left out
    return ((C("search_tickets", requester=e["username"], **status),),)


MY_TICKETS = Family(
    "my_tickets",
    (
        ("Can you list my {scope}? Username {username}.",),
        ("What {scope} does {username} have?",),
        ("Show the {scope} for {username}.",),
        ("{username} here, which {scope} do I have?",),
    ),
    [
        person("dwhitfield", scope="open tickets", status="open"),
        person("okoval", scope="tickets", status=None),
        person("rmorales", scope="resolved tickets", status="resolved"),
        person("aokafor", scope="tickets still in progress", status="in_progress"),
        person("lchen", scope="open tickets", status="open"),
        person("skim", scope="closed tickets", status="closed"),
        person("bnkosi", scope="tickets", status=None),
        person("gromano", scope="tickets in progress", status="in_progress"),
    ],
    _my_tickets,
)
