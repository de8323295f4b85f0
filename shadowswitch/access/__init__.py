"""Who may do what: agent keys (with their task types and limits), admin roles, dashboard sessions."""
