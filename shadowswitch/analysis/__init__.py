"""The comparison of both paths: report, verdict, statistics, sequential bounds, pricing. Pure."""
