"""Built-in content: site.toml defaults, band wording and Markdown pages (a data package)."""
