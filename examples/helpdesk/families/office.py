"""Devices, mail, on call and knowledge: lost phones, installs, hand-overs, forwarding, out-of-office,
quotas, the on-call rota, how-to articles."""

from __future__ import annotations

from examples.helpdesk.data import email_of, laptop_of, phone_of
from examples.helpdesk.families.common import Calls, person
from examples.helpdesk.tasks import C, Entity, Family

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
