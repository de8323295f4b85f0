"""The company's back office at the start of every task: people, devices, tickets, licences, groups.

Fixed, so a task can be checked on the state it leaves. "Today" is fixed too: users say "next
Monday" and the model writes the date the tools want (YYYY-MM-DD) from it.
"""

from __future__ import annotations

from datetime import date

TODAY = date(2027, 3, 10)  # a Wednesday
DOMAIN = "northwind.example"

# username → (full name, department); IT's technicians are users of the IT department
PEOPLE: dict[str, tuple[str, str]] = {
    "dwhitfield": ("Dana Whitfield", "Finance"),
    "okoval": ("Oleg Koval", "Engineering"),
    "pnair": ("Priya Nair", "Marketing"),
    "mgarcia": ("Miguel Garcia", "Sales"),
    "hlindqvist": ("Hanna Lindqvist", "HR"),
    "aokafor": ("Ade Okafor", "Engineering"),
    "lchen": ("Lin Chen", "Legal"),
    "rmorales": ("Rosa Morales", "Support"),
    "jpeters": ("Jonas Peters", "Finance"),
    "skim": ("Sun Kim", "Design"),
    "efischer": ("Elena Fischer", "Engineering"),
    "bnkosi": ("Bongani Nkosi", "Sales"),
    "ymori": ("Yuki Mori", "Marketing"),
    "cdubois": ("Claire Dubois", "Legal"),
    "fhaddad": ("Farid Haddad", "Support"),
    "gromano": ("Giulia Romano", "Design"),
    "tbrandt": ("Tobias Brandt", "Finance"),
    "nsato": ("Naomi Sato", "HR"),
    "pleclerc": ("Paul Leclerc", "Sales"),
    "wjansen": ("Wim Jansen", "Engineering"),
    "rweiss": ("Rita Weiss", "IT"),
    "kbauer": ("Karl Bauer", "IT"),
    "sosei": ("Sam Osei", "IT"),
    "mvarga": ("Marta Varga", "IT"),
}
LOCKED = ("dwhitfield", "mgarcia", "skim", "ymori", "jpeters", "efischer", "gromano", "nsato")
DISABLED = ("pleclerc", "wjansen")  # people who left
TECHNICIANS = ("rweiss", "kbauer", "sosei", "mvarga")
# who works remotely already: username → last day of VPN access
VPN: dict[str, str] = {
    "okoval": "2027-06-30",
    "bnkosi": "2027-04-15",
    "tbrandt": "2027-05-31",
    "fhaddad": "2027-03-31",
    "hlindqvist": "2027-08-01",
    "cdubois": "2027-04-30",
}

# department → the access groups its people are in
DEPARTMENT_GROUPS: dict[str, tuple[str, ...]] = {
    "Finance": ("finance-share",),
    "Engineering": ("eng-prod-readonly",),
    "Marketing": ("marketing-drive",),
    "Sales": ("sales-crm",),
    "HR": ("hr-records",),
    "Legal": ("legal-docs",),
    "Support": ("sales-crm",),
    "Design": ("design-assets", "marketing-drive"),
    "IT": ("eng-prod-readonly",),
}
GROUPS = (
    "finance-share",
    "eng-prod-readonly",
    "marketing-drive",
    "sales-crm",
    "hr-records",
    "legal-docs",
    "design-assets",
    "all-staff",
)

# product → (seats, the users holding one)
LICENCES: dict[str, tuple[int, tuple[str, ...]]] = {
    "Adobe Acrobat": (10, ("dwhitfield", "lchen", "cdubois", "jpeters")),
    "Figma": (6, ("skim", "gromano", "pnair")),
    "Visio": (4, ("okoval", "rweiss")),
    "Tableau": (3, ("tbrandt", "dwhitfield", "mgarcia")),  # full
    "JetBrains All Products": (8, ("okoval", "aokafor", "efischer")),
    "Power BI Pro": (5, ("jpeters",)),
}

SOFTWARE = ("Zoom", "Slack", "Python 3.12", "Docker Desktop", "7-Zip", "Power BI Desktop", "Notepad++", "Git")

# (id, requester, summary, priority, status, assignee)
TICKETS: tuple[tuple[str, str, str, str, str, str | None], ...] = (
    ("INC-1001", "dwhitfield", "Monitor flickering", "medium", "open", None),
    ("INC-1002", "okoval", "VPN drops every hour", "high", "in_progress", "kbauer"),
    ("INC-1003", "pnair", "Outlook crashes on start", "medium", "open", None),
    ("INC-1004", "mgarcia", "Printer on floor 2 jams", "low", "open", None),
    ("INC-1005", "aokafor", "Docker Desktop will not start", "medium", "in_progress", "sosei"),
    ("INC-1006", "lchen", "Shared drive L: missing", "high", "open", None),
    ("INC-1007", "rmorales", "Headset not detected", "low", "resolved", "rweiss"),
    ("INC-1008", "jpeters", "Excel macros blocked", "medium", "resolved", "mvarga"),
    ("INC-1009", "skim", "Figma fonts missing", "low", "closed", "rweiss"),
    ("INC-1010", "efischer", "Laptop battery swelling", "urgent", "open", None),
    ("INC-1011", "bnkosi", "CRM login loop", "high", "resolved", "kbauer"),
    ("INC-1012", "ymori", "Teams camera black", "medium", "closed", "sosei"),
    ("INC-1013", "cdubois", "Scanner to email fails", "medium", "open", None),
    ("INC-1014", "fhaddad", "Phone not syncing mail", "low", "resolved", "mvarga"),
    ("INC-1015", "hlindqvist", "Payroll share access", "high", "open", None),
    ("INC-1016", "tbrandt", "Keyboard keys sticking", "low", "closed", "rweiss"),
    ("INC-1017", "gromano", "Wacom tablet drivers", "medium", "in_progress", "mvarga"),
    ("INC-1018", "nsato", "Cannot print payslips", "high", "open", None),
)

ON_CALL_TEAMS = ("network", "servers", "service-desk", "security")

# (id, title, keywords)
KB_ARTICLES: tuple[tuple[str, str, str], ...] = (
    ("KB-101", "Connect to the VPN on a new laptop", "vpn remote access home connect"),
    ("KB-102", "Set up the authenticator app on a new phone", "mfa authenticator phone two-factor"),
    ("KB-103", "Map the shared drives", "drive share network folder map"),
    ("KB-104", "Add a printer on your floor", "printer print floor queue"),
    ("KB-105", "Recover deleted mail", "mail deleted recover outlook email"),
    ("KB-106", "Book a meeting room with Teams", "teams meeting room calendar book"),
    ("KB-107", "Encrypt a USB stick", "usb encrypt bitlocker stick"),
    ("KB-108", "Change your password before it expires", "password expire change reset"),
    ("KB-109", "Share a calendar", "calendar share outlook delegate"),
    ("KB-110", "Join the guest Wi-Fi", "wifi wireless guest network visitor"),
)


def email_of(username: str) -> str:
    first, last = PEOPLE[username][0].lower().split(" ", 1)
    return f"{first}.{last.replace(' ', '')}@{DOMAIN}"


def laptop_of(username: str) -> str:
    return f"LT-{4401 + list(PEOPLE).index(username)}"


def phone_of(username: str) -> str:
    return f"PH-{2201 + list(PEOPLE).index(username)}"


SPARE_LAPTOPS = tuple(f"LT-{n}" for n in range(4490, 4495))


def on_call(team: str, day: date) -> str:
    """The technician on call for a team on a day: a weekly rotation, shifted per team."""
    week = day.isocalendar()[1]
    return TECHNICIANS[(week + ON_CALL_TEAMS.index(team)) % len(TECHNICIANS)]
