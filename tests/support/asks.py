"""Requests of three kinds, six wordings each: what the encoder's tuning separates."""

ASKS = {
    "reset_password": [
        "I forgot my password and cannot log in",
        "please reset my password",
        "my login stopped working, I need a new password",
        "locked out of my account after too many attempts",
        "can you send me a password reset link",
        "I need to change my password, it expired",
    ],
    "report_printer": [
        "the printer on the third floor is jammed",
        "printing does not work from my laptop",
        "the office printer shows an error light",
        "my documents are stuck in the print queue",
        "the printer is out of toner again",
        "nothing comes out when I print",
    ],
    "grant_vpn": [
        "I need VPN access to work from home",
        "please give me remote access to the network",
        "how do I connect to the company network from outside",
        "my VPN account has not been set up yet",
        "I am travelling next week and need the VPN",
        "can I get access to the intranet remotely",
    ],
}
