"""The comparison dashboard: templates, static files (uPlot and htmx vendored from npm), chart data."""
