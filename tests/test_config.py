"""`content/site.toml`: typed options; an unknown key or a bad value is an error naming it."""

from __future__ import annotations

from pathlib import Path

import pytest
from reasonboard.config import SiteConfig, load_config, parse_config
from reasonboard.errors import InputError

REPO = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "site.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_empty_file_and_no_file_mean_defaults(tmp_path):
    for config in (load_config(write(tmp_path, "")), load_config(None), parse_config({})):
        assert config == SiteConfig()
        assert (config.mode, config.bootstrap, config.seed, config.pairwise_top) == ("C_P", 5000, 42, 50)
        assert config.tasks == () and config.model_aliases == {} and config.evaluations == {}


def test_the_package_ships_no_site_toml_and_neutral_defaults():
    """A lab's results are never published under the demo's name."""
    assert not (REPO / "content" / "site.toml").exists()
    config = SiteConfig()
    assert (config.title, config.organization) == ("Leaderboard", "")
    assert "demo" not in config.description.lower()


def test_demo_defaults_fill_only_what_the_file_left_unset(tmp_path):
    assert SiteConfig().with_demo_defaults().title == "reasonboard demo leaderboard"
    own = load_config(write(tmp_path, 'title = "Lab board"\n'))
    demo = own.with_demo_defaults()
    assert (demo.title, demo.organization) == ("Lab board", "reasonboard demo")


def test_the_scaffolded_site_toml_is_valid_and_names_every_key():
    """`reasonboard init`'s site.toml: valid as written, and every key is there, commented."""
    from reasonboard.config import OPTIONS
    from reasonboard.resources import SCAFFOLD_DIR

    text = (SCAFFOLD_DIR / "content" / "site.toml").read_text(encoding="utf-8")
    assert load_config(SCAFFOLD_DIR / "content" / "site.toml") == SiteConfig()
    for key in [*OPTIONS, "aliases.models", "aliases.benchmarks", "evaluations"]:
        assert f"# {key} = " in text or f"# [{key}]" in text or f"# [[{key}]]" in text, key


def test_branding_paths_stay_inside_static(tmp_path):
    config = load_config(write(tmp_path, 'logo = "img/logo.svg"\nfooter = "[Us](mailto:a@b.org)"\n'))
    assert (config.logo, config.footer) == ("img/logo.svg", "[Us](mailto:a@b.org)")
    for bad in ("../secret.png", "/etc/logo.png", "img//x.png", ""):
        with pytest.raises(InputError) as err:
            load_config(write(tmp_path, f'favicon = "{bad}"\n'))
        assert "key 'favicon'" in err.value.message


def test_every_option_is_read(tmp_path):
    config = load_config(write(tmp_path, """
title = "T"
description = "D"
base_url = "https://example.org/board"
organization = "Org"
relationship = "first_party"
tasks = ["b", "a"]
mode = "E_O"
bootstrap = 1000
seed = 7
pairwise_top = 3
populated_rule = "presence"
agentic_pattern = "agent|swe"
page_size = 20
[aliases.models]
"Org/M-1" = "m1"
[aliases.benchmarks]
"gsm-8k" = "gsm8k"
[evaluations]
m1 = "tpl/smp"
"""))
    assert config == SiteConfig(
        title="T", description="D", base_url="https://example.org/board", organization="Org",
        relationship="first_party", tasks=("b", "a"), mode="E_O", bootstrap=1000, seed=7, pairwise_top=3,
        populated_rule="presence", agentic_pattern="agent|swe", page_size=20,
        model_aliases={"Org/M-1": "m1"}, benchmark_aliases={"gsm-8k": "gsm8k"}, evaluations={"m1": "tpl/smp"})
    assert config.with_tasks(("x",)).tasks == ("x",) and config.tasks == ("b", "a")


@pytest.mark.parametrize("text, key", [
    ("boostrap = 5000", "boostrap"),
    ("Title = 'x'", "Title"),
    ("[site]\ntitle = 'x'", "site"),
    ("[aliases.tasks]\na = 'b'", "aliases.tasks"),
])
def test_unknown_keys_are_named(tmp_path, text, key):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as err:
        load_config(path)
    assert err.value.path == str(path)
    assert f"unknown key '{key}'" in err.value.problem
    assert str(path) in str(err.value)


@pytest.mark.parametrize("text, key", [
    ("title = 5", "title"),
    ("base_url = ['x']", "base_url"),
    ("relationship = 'partner'", "relationship"),
    ("mode = 'C_X'", "mode"),
    ("mode = 'c_p'", "mode"),
    ("bootstrap = 0", "bootstrap"),
    ("bootstrap = 1.5", "bootstrap"),
    ("bootstrap = true", "bootstrap"),
    ("bootstrap = '5000'", "bootstrap"),
    ("seed = '42'", "seed"),
    ("seed = false", "seed"),
    # Values the build cannot use: a negative seed (numpy's generators refuse it: a
    # traceback) and a bootstrap too large to hold (a memory error, 894 GiB).
    ("seed = -7", "seed"),
    ("bootstrap = 10000000000", "bootstrap"),
    ("paired_draws = 1000000000", "paired_draws"),
    ("paired_draws = 0", "paired_draws"),
    # Two boards of one name (the second named like the first, even as the same string).
    ("[[boards]]\nname = 'A'\ntasks = ['x']\n[[boards]]\nname = 'A'\ntasks = ['y']", "boards"),
    ("[[boards]]\nname = 'Main'\ntasks = ['x']\n[[boards]]\nname = 'main'\ntasks = ['y']", "boards"),
    ("pairwise_top = -1", "pairwise_top"),
    ("page_size = 0", "page_size"),
    ("tasks = 'arithmetic'", "tasks"),
    ("tasks = ['a', 'a']", "tasks"),
    ("tasks = ['a', '']", "tasks"),
    ("tasks = [1]", "tasks"),
    ("populated_rule = 'loose'", "populated_rule"),
    ("agentic_pattern = '(unclosed'", "agentic_pattern"),
    ("aliases = 'x'", "aliases"),
    ("[aliases]\nmodels = 3", "aliases.models"),
    ("[aliases.models]\na = 1", "aliases.models"),
    ("evaluations = ['m1']", "evaluations"),
    ("[evaluations]\nm1 = 2", "evaluations"),
])
def test_bad_values_name_the_key(tmp_path, text, key):
    path = write(tmp_path, text)
    with pytest.raises(InputError) as err:
        load_config(path)
    assert err.value.path == str(path)
    assert f"'{key}'" in err.value.problem


def test_invalid_toml_and_missing_file(tmp_path):
    path = write(tmp_path, "title = ")
    with pytest.raises(InputError) as err:
        load_config(path)
    assert err.value.path == str(path) and "TOML" in err.value.problem
    with pytest.raises(InputError) as err:
        load_config(tmp_path / "absent.toml")
    assert err.value.path == str(tmp_path / "absent.toml") and "not found" in err.value.problem


def test_config_is_frozen():
    with pytest.raises(Exception):
        SiteConfig().mode = "E_I"  # type: ignore[misc]


def test_every_config_field_is_a_key_declared_with_its_check():
    """Each key is declared once, on its SiteConfig field (type, default, check): a field
    without a check could never be set from the file, and a check without a field could not
    hold its value."""
    from dataclasses import fields

    from reasonboard.config import OPTIONS, TABLES

    declared = {f.name for f in fields(SiteConfig) if f.name not in ("path", "given")}
    assert declared == {*OPTIONS, *TABLES.values()}
    assert set(TABLES) == {"aliases.models", "aliases.benchmarks", "evaluations"}
    assert load_config(None) == SiteConfig() and SiteConfig().pairwise_top == 50
