"""`shadowswitch bench cluster`: replicas on PostgreSQL behind a real load balancer."""
