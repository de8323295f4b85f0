"""The help desk's task set: 26 families of requests, 4 phrasings each, 2 tasks a phrasing (208 tasks).

"Today" is Wednesday 2027-03-10 (data.TODAY): where a user says "Friday" or "next Monday", the
model writes the date as the tools want it, which the user never typed.
"""

from __future__ import annotations

from examples.helpdesk.data import PEOPLE, email_of, laptop_of, phone_of
from examples.helpdesk.tasks import C, Call, Entity, F, Family, Task

Calls = tuple[tuple[Call, ...], ...]


def person(username: str, **extra: object) -> Entity:
    name, department = PEOPLE[username]
    return {"username": username, "name": name, "first": name.split()[0], "dept": department, **extra}


def _unlock(e: Entity) -> Calls:
    found = C("find_user", query=e["name"])
    return ((found, C("unlock_account", username=e["username"])),) if e["locked"] else ((found,),)


UNLOCK = Family(
    "unlock",
    (
        ("Hi, this is {name}. I typed my password wrong too many times and now I'm locked out.",),
        ("{name} here, my account got locked this morning, can you unlock it?", "Great, thanks!"),
        ("Could you unlock the account of {name}? It says too many failed attempts.",),
        ("Locked out again :( it's {name} from {dept}",),
    ),
    [
        person(u, locked=u not in ("okoval", "lchen"))
        for u in ("dwhitfield", "mgarcia", "okoval", "skim", "ymori", "jpeters", "lchen", "efischer")
    ],
    _unlock,
)

PASSWORD = Family(
    "password",
    (
        ("I forgot my password. My username is {username}.",),
        ("Please reset the password for {username}, they can't sign in.",),
        ("Password expired and I can't remember the old one, login {username}", "Thank you!"),
        ("Need a new temporary password for account {username} please",),
    ),
    [
        person(u)
        for u in ("okoval", "pnair", "hlindqvist", "aokafor", "lchen", "rmorales", "bnkosi", "cdubois")
    ],
    lambda e: ((C("get_user", username=e["username"]), C("reset_password", username=e["username"])),),
)

PASSWORD_LEAVER = Family(
    "password_disabled",
    (
        ("Please reset the password of {name}, the old one doesn't work.",),
        ("{name} says their password stopped working. Can you send a new one?",),
        ("Reset password for {name} please",),
        ("Can {name} get a password reset? It's a bit urgent.",),
    ),
    [person("pleclerc"), person("wjansen")],
    lambda e: ((C("find_user", query=e["name"]), F("reset_password", username=e["username"])),),
)

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


def _licence(e: Entity) -> Calls:
    steps = (C("find_user", query=e["name"]), C("check_licence", product=e["product"]))
    if e["full"]:  # no free seat: the model says so instead of trying
        return (steps,)
    return ((*steps, C("assign_licence", username=e["username"], product=e["product"])),)


LICENCE = Family(
    "licence",
    (
        ("I'm {name} and I need a {product} licence for a project.",),
        ("Could {name} get a {product} seat?",),
        ("Do we have a spare {product} licence? If so it's for {name}.",),
        ("{name} here. Please set me up with {product}.", "Great, thank you"),
    ),
    [
        person("okoval", product="Figma", full=False),
        person("ymori", product="Adobe Acrobat", full=False),
        person("rmorales", product="Visio", full=False),
        person("hlindqvist", product="Tableau", full=True),
        person("bnkosi", product="Power BI Pro", full=False),
        person("skim", product="Adobe Acrobat", full=False),
        person("fhaddad", product="Tableau", full=True),
        person("efischer", product="Figma", full=False),
    ],
    _licence,
)


def _revoke(e: Entity) -> Calls:
    make = C if e["holds"] else F
    return ((make("revoke_licence", username=e["username"], product=e["product"]),),)


REVOKE = Family(
    "revoke_licence",
    (
        ("{username} doesn't use {product} anymore, please take the licence back.",),
        ("Revoke the {product} licence from {username}.",),
        ("Free up {username}'s {product} seat please.",),
        ("Remove {product} from user {username}, they moved teams.",),
    ),
    [
        person("okoval", product="Visio", holds=True),
        person("jpeters", product="Power BI Pro", holds=True),
        person("aokafor", product="Visio", holds=False),
        person("gromano", product="Figma", holds=True),
        person("tbrandt", product="Tableau", holds=True),
        person("lchen", product="Adobe Acrobat", holds=True),
        person("pnair", product="Tableau", holds=False),
        person("efischer", product="JetBrains All Products", holds=True),
    ],
    _revoke,
)

GROUP_ADD = Family(
    "group_add",
    (
        ("Please add {username} to the {group} group.",),
        ("I need access to {group}, my username is {username}.",),
        ("Can you put {username} in {group}?",),
        ("Give {username} access to {group} please.", "Thanks!"),
    ),
    [
        person("pnair", group="design-assets", member=False),
        person("okoval", group="finance-share", member=False),
        person("jpeters", group="finance-share", member=True),
        person("rmorales", group="legal-docs", member=False),
        person("tbrandt", group="hr-records", member=False),
        person("skim", group="marketing-drive", member=True),
        person("bnkosi", group="marketing-drive", member=False),
        person("aokafor", group="sales-crm", member=False),
    ],
    lambda e: (((F if e["member"] else C)("add_to_group", username=e["username"], group=e["group"]),),),
)

GROUP_REMOVE = Family(
    "group_remove",
    (
        ("{name} moved to another team, take them out of {group}.",),
        ("Please remove {name} from {group}.",),
        ("{name} shouldn't be in {group} anymore.",),
        ("Revoke {group} access for {name}.",),
    ),
    [
        person("dwhitfield", group="finance-share"),
        person("okoval", group="eng-prod-readonly"),
        person("pnair", group="marketing-drive"),
        person("mgarcia", group="sales-crm"),
        person("lchen", group="legal-docs"),
        person("skim", group="design-assets"),
        person("rmorales", group="sales-crm"),
        person("nsato", group="hr-records"),
    ],
    lambda e: (
        (C("find_user", query=e["name"]), C("remove_from_group", username=e["username"], group=e["group"])),
    ),
)

GROUP_MEMBERS = Family(
    "group_members",
    (
        ("Who has access to {group}?",),
        ("List the members of {group} please.",),
        ("Which people are in the {group} group?",),
        ("Can you tell me who is in {group}?",),
    ),
    [
        {"group": g}
        for g in (
            "finance-share",
            "eng-prod-readonly",
            "marketing-drive",
            "sales-crm",
            "hr-records",
            "legal-docs",
            "design-assets",
            "all-staff",
        )
    ],
    lambda e: ((C("list_group_members", group=e["group"]),),),
)

VPN_GRANT = Family(
    "vpn_grant",
    (
        ("I'm working from home, I need VPN {until}. Username {username}.",),
        ("Please give {username} VPN access {until}.",),
        ("Can {username} have remote access {until}?",),
        ("VPN for {username} {until}, thanks.",),
    ),
    [
        person("pnair", until="until Friday", day="2027-03-12"),
        person("dwhitfield", until="until next Monday", day="2027-03-15"),
        person("aokafor", until="for two weeks", day="2027-03-24"),
        person("lchen", until="until the end of the month", day="2027-03-31"),
        person("rmorales", until="until 30 April", day="2027-04-30"),
        person("gromano", until="until Friday next week", day="2027-03-19"),
        person("jpeters", until="until tomorrow", day="2027-03-11"),
        person("ymori", until="until 15 May", day="2027-05-15"),
    ],
    lambda e: ((C("grant_vpn_access", username=e["username"], until=e["day"]),),),
)

LEAVER = Family(
    "leaver",
    (
        ("{name} left the company today. Please revoke their VPN and disable the account.",),
        ("Offboarding: {name}. Cut VPN access and disable the login.",),
        ("{name}'s last day was yesterday, VPN off and account disabled please.",),
        ("Please disable {name}'s account and take away the VPN, they've left.",),
    ),
    [person(u) for u in ("okoval", "bnkosi", "tbrandt", "fhaddad", "hlindqvist", "cdubois")],
    lambda e: (
        (
            C("find_user", query=e["name"]),
            C("revoke_vpn_access", username=e["username"]),
            C("disable_account", username=e["username"]),
        ),
    ),
)

LOST_PHONE = Family(
    "lost_phone",
    (
        ("I'm {name} and I left my work phone on the train.",),
        ("{name} here, my company phone was stolen last night.", "OK, thanks for the help."),
        ("Lost my phone :( {name}, {dept}.",),
        ("Please report {name}'s work phone as lost.",),
    ),
    [person(u) for u in ("pnair", "mgarcia", "aokafor", "rmorales", "bnkosi", "cdubois", "tbrandt", "nsato")],
    lambda e: (
        (
            C("find_user", query=e["name"]),
            C("list_devices", username=e["username"]),
            C("report_lost_device", asset_tag=phone_of(e["username"])),
        ),
    ),
)


def _install(e: Entity) -> Calls:
    look = C("get_device", asset_tag=e["tag"])
    if e["phone"]:  # not a laptop: the model sees it and says so
        return ((look,),)
    return ((look, C("install_software", asset_tag=e["tag"], package=e["pkg"])),)


INSTALL = Family(
    "install",
    (
        ("Can you install {pkg} on my laptop {tag}?",),
        ("I need {pkg} on {tag}, please.",),
        ("Please put {pkg} on laptop {tag}.",),
        ("Install {pkg} for me, asset tag {tag}.",),
    ),
    [
        {"pkg": "Zoom", "tag": laptop_of("okoval"), "phone": False},
        {"pkg": "Docker Desktop", "tag": laptop_of("aokafor"), "phone": False},
        {"pkg": "Power BI Desktop", "tag": laptop_of("jpeters"), "phone": False},
        {"pkg": "Slack", "tag": phone_of("pnair"), "phone": True},
        {"pkg": "Python 3.12", "tag": laptop_of("efischer"), "phone": False},
        {"pkg": "7-Zip", "tag": laptop_of("lchen"), "phone": False},
        {"pkg": "Notepad++", "tag": laptop_of("rmorales"), "phone": False},
        {"pkg": "Git", "tag": laptop_of("okoval"), "phone": False},
    ],
    _install,
)

FORWARDING = Family(
    "forwarding",
    (
        ("{username} is on parental leave; forward their mail to {email}.",),
        ("Please forward all mail for {username} to {email}.",),
        ("Set up forwarding from {username} to {email}.",),
        ("Could mail for user {username} go to {email} for now?",),
    ),
    [
        person(u, email=email_of(to))
        for u, to in (
            ("pnair", "ymori"),
            ("okoval", "aokafor"),
            ("lchen", "cdubois"),
            ("mgarcia", "bnkosi"),
            ("jpeters", "dwhitfield"),
            ("skim", "gromano"),
            ("hlindqvist", "nsato"),
            ("rmorales", "fhaddad"),
        )
    ],
    lambda e: ((C("set_mail_forwarding", username=e["username"], forward_to=e["email"]),),),
)

OUT_OF_OFFICE = Family(
    "out_of_office",
    (
        ("I'm on holiday {span}. Please set my out-of-office, username {username}.",),
        ("Turn on the out-of-office for {username} {span}.",),
        ("{username} will be away {span}, can you set an auto-reply?",),
        ("Out of office for {username}, {span}.", "Thanks"),
    ),
    [
        person("pnair", span="from Monday to Friday next week", start="2027-03-15", end="2027-03-19"),
        person("okoval", span="from tomorrow until Sunday", start="2027-03-11", end="2027-03-14"),
        person("lchen", span="from 22 March to 2 April", start="2027-03-22", end="2027-04-02"),
        person("bnkosi", span="next Thursday and Friday", start="2027-03-18", end="2027-03-19"),
        person("hlindqvist", span="all of April", start="2027-04-01", end="2027-04-30"),
        person("aokafor", span="from the 15th to the 26th", start="2027-03-15", end="2027-03-26"),
        person("cdubois", span="today and tomorrow", start="2027-03-10", end="2027-03-11"),
        person("fhaddad", span="from 3 May to 14 May", start="2027-05-03", end="2027-05-14"),
    ],
    lambda e: ((C("set_out_of_office", username=e["username"], start=e["start"], end=e["end"]),),),
)

QUOTA = Family(
    "quota",
    (
        ("My mailbox is full. Could you raise the quota for {username} {how}?",),
        ("Please increase {username}'s mailbox {how}.",),
        ("Mailbox quota for {username}: {how}, please.",),
        ("{username} keeps getting 'mailbox full', raise it {how}.",),
    ),
    [
        person("pnair", how="to 100 GB", gb=100),
        person("okoval", how="double it", gb=100),
        person("lchen", how="to 75 GB", gb=75),
        person("bnkosi", how="by 25 GB", gb=75),
        person("hlindqvist", how="to 150 GB", gb=150),
        person("aokafor", how="to 80 GB", gb=80),
        person("cdubois", how="by another 50 GB", gb=100),
        person("fhaddad", how="to 120 GB", gb=120),
    ],
    lambda e: (
        (
            C("get_user", username=e["username"]),
            C("set_mailbox_quota", username=e["username"], quota_gb=e["gb"]),
        ),
    ),
)

ON_CALL = Family(
    "on_call",
    (
        ("Who's on call for {team_said} {when}?",),
        ("Which {team_said} engineer is on call {when}?",),
        ("I need the {team_said} on-call person {when}.",),
        ("Who do I page in {team_said} {when}?", "Thanks, I'll call them."),
    ),
    [
        {"team_said": "network", "team": "network", "when": "today", "day": "2027-03-10"},
        {"team_said": "servers", "team": "servers", "when": "tomorrow", "day": "2027-03-11"},
        {"team_said": "service desk", "team": "service-desk", "when": "on Saturday", "day": "2027-03-13"},
        {"team_said": "security", "team": "security", "when": "next Monday", "day": "2027-03-15"},
        {"team_said": "network", "team": "network", "when": "this Friday", "day": "2027-03-12"},
        {"team_said": "servers", "team": "servers", "when": "on 20 March", "day": "2027-03-20"},
        {"team_said": "security", "team": "security", "when": "tonight", "day": "2027-03-10"},
        {"team_said": "service desk", "team": "service-desk", "when": "on 2 April", "day": "2027-04-02"},
    ],
    lambda e: ((C("get_on_call", team=e["team"], date=e["day"]),),),
)

KB = Family(
    "kb",
    (
        ("How do I {q}?",),
        ("Is there a guide to {q_ing}?",),
        ("Any instructions on how to {q}?", "Thanks, that helps."),
        ("I want to {q}. Where do I find how?",),
    ),
    [
        {
            "q": "connect to the VPN from home",
            "q_ing": "connecting to the VPN from home",
            "query": "VPN home",
        },
        {
            "q": "set up the authenticator on my new phone",
            "q_ing": "setting up the authenticator on a new phone",
            "query": "authenticator phone",
        },
        {
            "q": "add the printer on my floor",
            "q_ing": "adding the printer on my floor",
            "query": "printer floor",
        },
        {
            "q": "get back an email I deleted",
            "q_ing": "getting back deleted email",
            "query": "recover deleted mail",
        },
        {"q": "encrypt a USB stick", "q_ing": "encrypting a USB stick", "query": "encrypt USB"},
        {
            "q": "share my calendar with my assistant",
            "q_ing": "sharing my calendar",
            "query": "share calendar",
        },
        {"q": "get a visitor on the Wi-Fi", "q_ing": "getting visitors on the Wi-Fi", "query": "guest wifi"},
        {"q": "map the shared drive", "q_ing": "mapping the shared drives", "query": "map shared drive"},
    ],
    lambda e: ((C("search_kb", query=e["query"]),),),
)

MFA = Family(
    "mfa",
    (
        ("I got a new phone and my authenticator codes are gone. I'm {name}.",),
        ("{name} here, can you reset my two-factor? Lost the old phone.",),
        ("Please reset MFA for {name}.",),
        ("{name} can't get past the two-factor prompt since switching phones.", "Thank you so much"),
    ),
    [
        person(u)
        for u in ("pnair", "okoval", "lchen", "bnkosi", "hlindqvist", "aokafor", "cdubois", "tbrandt")
    ],
    lambda e: ((C("find_user", query=e["name"]), C("reset_mfa", username=e["username"])),),
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

HANDOVER = Family(
    "handover",
    (
        ("Please give the spare laptop {tag} to {name}.",),
        ("{name} is starting Monday, assign laptop {tag} to them.",),
        ("Hand {tag} over to {name}, please.",),
        ("Can {name} have laptop {tag}?",),
    ),
    [
        person(u, tag=f"LT-{n}")
        for u, n in (
            ("pnair", 4490),
            ("okoval", 4491),
            ("lchen", 4492),
            ("bnkosi", 4493),
            ("hlindqvist", 4494),
            ("aokafor", 4490),
            ("cdubois", 4491),
            ("tbrandt", 4492),
        )
    ],
    lambda e: (
        (
            C("find_user", query=e["name"]),
            C("get_device", asset_tag=e["tag"]),
            C("assign_device", asset_tag=e["tag"], username=e["username"]),
        ),
    ),
)

FAMILIES: tuple[Family, ...] = (
    UNLOCK,
    PASSWORD,
    PASSWORD_LEAVER,
    TICKET_STATUS,
    CLOSE,
    ASSIGN,
    NEW_TICKET,
    LICENCE,
    REVOKE,
    GROUP_ADD,
    GROUP_REMOVE,
    GROUP_MEMBERS,
    VPN_GRANT,
    LEAVER,
    LOST_PHONE,
    INSTALL,
    FORWARDING,
    OUT_OF_OFFICE,
    QUOTA,
    ON_CALL,
    KB,
    MFA,
    REOPEN,
    PRIORITY,
    MY_TICKETS,
    HANDOVER,
)
TASKS: list[Task] = [task for family in FAMILIES for task in family.tasks()]
