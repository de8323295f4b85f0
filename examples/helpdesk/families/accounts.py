"""Accounts and access: unlock, passwords, two-factor, leavers, VPN, groups, licences."""

from __future__ import annotations

from examples.helpdesk.families.common import Calls, person
from examples.helpdesk.tasks import C, Entity, F, Family


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
