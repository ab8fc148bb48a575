"""Built-in content: band wording and the methodology and interpretation-guide pages; `demo/`
holds the pages of the demo data only (a data package, no site.toml: defaults live in config.py)."""
