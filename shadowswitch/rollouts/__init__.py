"""The rollout domain: routing, ramp, breaker, feedback, outcomes, and their store."""
