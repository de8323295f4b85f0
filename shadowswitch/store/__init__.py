"""The database: tables, engines, migrations, decision and exemplar stores, the batched writer."""
