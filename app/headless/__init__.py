"""headless."""
