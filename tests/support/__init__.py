"""What the tests share: clients, the servers they start, policies, scripted engines, `eventually()`.

Test modules import from here, never from one another.
"""
