"""The help desk's families of requests, in the order the held-out split rotates through them."""

from __future__ import annotations

from examples.helpdesk.families.accounts import (
    GROUP_ADD,
    GROUP_MEMBERS,
    GROUP_REMOVE,
    LEAVER,
    LICENCE,
    MFA,
    PASSWORD,
    PASSWORD_LEAVER,
    REVOKE,
    UNLOCK,
    VPN_GRANT,
)
from examples.helpdesk.families.office import (
    FORWARDING,
    HANDOVER,
    INSTALL,
    KB,
    LOST_PHONE,
    ON_CALL,
    OUT_OF_OFFICE,
    QUOTA,
)
from examples.helpdesk.families.tickets import (
    ASSIGN,
    CLOSE,
    MY_TICKETS,
    NEW_TICKET,
    PRIORITY,
    REOPEN,
    TICKET_STATUS,
)
from examples.helpdesk.tasks import Family

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
