"""The process: settings, the app and its lifespan, services, metrics, live reload."""
