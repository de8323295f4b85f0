"""The rollout domain's database shells: rollouts and their audit, ramps, breaker state, live reads."""
