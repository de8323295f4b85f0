"""`shadowswitch bench load`: many concurrent requests of every kind through a real proxy."""
