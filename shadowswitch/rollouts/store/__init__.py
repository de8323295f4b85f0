"""The rollout domain's database side: the Rollout's repository, the ramp's evidence, the live view."""
