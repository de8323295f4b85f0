"""Knowledge that text alone does not give (a city's state or country), in tables shipped offline."""
