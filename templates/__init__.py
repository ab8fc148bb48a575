"""Built-in Jinja templates and site assets (a data package: a project's templates/ overrides any file by name)."""
