"""Leaderboard projects: `reasonboard init`, the lookup order project → package for
templates, content pages and band wording, `static/`, branding, and the up-to-date check
over all of them. In-process builds of a small lab dataset; the installed wheel is
exercised in test_installed.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers_points import write_lab_data
from helpers_site import html_pages, parse
from reasonboard import __version__
from reasonboard.build import BuildOptions, run_build
from reasonboard.cli import main
from reasonboard.errors import InputError
from reasonboard.resources import CONTENT_DIR, TEMPLATES_DIR

SCAFFOLD = {
    "README.md", "requirements.txt", ".gitignore", ".github/workflows/pages.yml", ".github/workflows/pr-report.yml",
    "content/site.toml", "data/README.md", "data/evals.json", "data/points/README.md", "data/eee/README.md",
    "data/cards/README.md", "templates/README.md", "static/.gitkeep",
}


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}


def init(*args: str):
    return CliRunner().invoke(main, ["init", *args])


# -- init -------------------------------------------------------------------------------------


def test_init_writes_the_project(tmp_path):
    result = init(str(tmp_path / "lab"))
    assert result.exit_code == 0, result.output
    lab = tmp_path / "lab"
    assert files_under(lab) == SCAFFOLD
    assert (lab / "requirements.txt").read_text(encoding="utf-8").splitlines()[-1] == f"reasonboard=={__version__}"
    assert (lab / "data" / "evals.json").read_text(encoding="utf-8").strip() == "[]"
    ignored = (lab / ".gitignore").read_text(encoding="utf-8").split()
    assert "/site/" in ignored and ".reasonboard-cache/" in ignored
    readme = (lab / "README.md").read_text(encoding="utf-8")
    for step in ("reasonboard build", "reasonboard serve", "reasonboard ingest", "reasonboard diff", "Pages"):
        assert step in readme, step


def test_init_refuses_a_non_empty_directory(tmp_path):
    (tmp_path / "notes.txt").write_text("mine", encoding="utf-8")
    result = init(str(tmp_path))
    assert result.exit_code == 2
    assert "is not empty" in result.output and "--force" in result.output
    assert files_under(tmp_path) == {"notes.txt"}


def test_init_force_never_overwrites(tmp_path):
    (tmp_path / "README.md").write_text("our own readme\n", encoding="utf-8")
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "site.toml").write_text('title = "Ours"\n', encoding="utf-8")
    result = init(str(tmp_path), "--force")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "README.md").read_text(encoding="utf-8") == "our own readme\n"
    assert (tmp_path / "content" / "site.toml").read_text(encoding="utf-8") == 'title = "Ours"\n'
    assert "kept" in result.output and "README.md" in result.output and "site.toml" in result.output
    assert files_under(tmp_path) == SCAFFOLD
    again = init(str(tmp_path), "--force")  # a second run adds nothing and changes nothing
    assert again.exit_code == 0 and again.output.count("kept") == len(SCAFFOLD)


# -- building a project ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory) -> Path:
    """One cache for the module's builds: the Vega bundle is made once."""
    return tmp_path_factory.mktemp("cache")


def lab_project(root: Path) -> Path:
    assert init(str(root)).exit_code == 0
    write_lab_data(root / "data")
    return root


def build(project: Path, cache: Path):
    return run_build(BuildOptions(project=project, cache_dir=cache))


def test_a_project_with_no_overrides_gets_neutral_built_in_pages(tmp_path, shared_cache):
    project = lab_project(tmp_path / "lab")
    build(project, shared_cache)
    site = project / "site"
    pages = html_pages(site)
    assert "methodology.html" in pages and "guide.html" in pages and "about.html" not in pages
    index = parse((site / "index.html").read_text(encoding="utf-8"))
    assert index.find("title").text == "Leaderboard · Leaderboard"
    assert "published by" not in index.find("footer").text  # no organisation by default
    nav = [a.text for a in index.find("nav").find_all("a")]
    assert nav == ["Leaderboard", "Matrix", "Pairwise", "Signals", "Methodology", "Interpretation guide"]


def test_project_files_replace_built_in_ones_of_the_same_name_and_add_the_others(tmp_path, shared_cache):
    project = lab_project(tmp_path / "lab")
    content, templates = project / "content", project / "templates"
    (content / "methodology.md").write_text('+++\ntitle = "Our method"\norder = 5\n+++\nWe count.\n', encoding="utf-8")
    (content / "team.md").write_text('+++\ntitle = "Team"\n+++\n![us](img/team.png)\n', encoding="utf-8")
    bands = (CONTENT_DIR / "bands.toml").read_text(encoding="utf-8")
    first_label = next(line.split('"')[1] for line in bands.splitlines() if line.strip().startswith("label"))
    (content / "bands.toml").write_text(bands.replace(f'"{first_label}"', '"Stellar"', 1), encoding="utf-8")
    (templates / "content.html").write_text(
        (TEMPLATES_DIR / "content.html").read_text(encoding="utf-8").replace("{% block main %}",
                                                                             "{% block main %}<p id=ours>ours</p>", 1),
        encoding="utf-8")
    (templates / "assets").mkdir()
    (templates / "assets" / "style.css").write_text("body { color: teal }\n", encoding="utf-8")
    (project / "static" / "img").mkdir()
    (project / "static" / "img" / "team.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    build(project, shared_cache)
    site = project / "site"

    method = parse((site / "methodology.html").read_text(encoding="utf-8"))
    assert method.find("h1").text == "Our method" and "We count." in method.find("main").text
    team = parse((site / "team.html").read_text(encoding="utf-8"))
    assert team.by_id("ours") is not None  # the project's content.html
    assert team.find("main").find("img").attrs["src"] == "img/team.png"
    assert (site / "img" / "team.png").is_file()
    guide = parse((site / "guide.html").read_text(encoding="utf-8"))
    assert guide.by_id("ours") is not None and "Stellar" in guide.text  # built-in page, project template and bands
    css = [p for p in (site / "assets").iterdir() if p.name.startswith("style-")]
    assert [p.read_text(encoding="utf-8") for p in css] == ["body { color: teal }\n"]


def test_static_may_add_but_never_replace_a_generated_file(tmp_path, shared_cache):
    project = lab_project(tmp_path / "lab")
    (project / "static" / "data").mkdir()
    (project / "static" / "data" / "leaderboard.json").write_text("{}", encoding="utf-8")
    with pytest.raises(InputError) as err:
        build(project, shared_cache)
    assert "leaderboard.json" in err.value.path and "would replace the generated file data/leaderboard.json" in \
        err.value.problem
    assert not (project / "site").exists()


def test_branding_files_must_exist_in_static(tmp_path, shared_cache):
    project = lab_project(tmp_path / "lab")
    with (project / "content" / "site.toml").open("a", encoding="utf-8") as fh:
        fh.write('\nfavicon = "icon.png"\n')
    result = CliRunner().invoke(main, ["build", "--project", str(project), "--cache", str(shared_cache)])
    assert result.exit_code == 2
    assert "site.toml, line " in result.output  # where the key is written
    assert ": key 'favicon' names 'icon.png', which is not a file in" in result.output
    (project / "static" / "icon.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (project / "static" / "extra.css").write_text(".x{}\n", encoding="utf-8")
    with (project / "content" / "site.toml").open("a", encoding="utf-8") as fh:
        fh.write('extra_css = "extra.css"\n')
    build(project, shared_cache)
    doc = parse((project / "site" / "models" / "aster-7b.html").read_text(encoding="utf-8"))
    links = {(link.attrs["rel"], link.attrs["href"]) for link in doc.find_all("link")}
    assert ("icon", "../icon.png") in links and ("stylesheet", "../extra.css") in links


def test_a_changed_static_file_or_template_rebuilds(tmp_path, shared_cache):
    project = lab_project(tmp_path / "lab")
    (project / "static" / "CNAME").write_text("a.example\n", encoding="utf-8")
    assert build(project, shared_cache).fresh
    assert not build(project, shared_cache).fresh  # nothing changed: up to date
    (project / "static" / "CNAME").write_text("b.example\n", encoding="utf-8")
    summary = build(project, shared_cache)
    assert summary.fresh and summary.changed == 1
    assert (project / "site" / "CNAME").read_text(encoding="utf-8") == "b.example\n"
    (project / "templates" / "404.html").write_text(
        (TEMPLATES_DIR / "404.html").read_text(encoding="utf-8") + "\n", encoding="utf-8")
    assert build(project, shared_cache).fresh
    (project / "static" / "CNAME").unlink()
    assert build(project, shared_cache).fresh
    assert not (project / "site" / "CNAME").exists()


def test_a_project_overrides_a_repeated_fragment_and_no_other_build_sees_it(tmp_path, shared_cache):
    """Band labels, badges and missing-field lists are partials (rendered once per distinct
    value): a project's `templates/partials/band.html` changes its own pages only."""
    ours = lab_project(tmp_path / "ours")
    (ours / "templates" / "partials").mkdir(parents=True, exist_ok=True)
    (ours / "templates" / "partials" / "band.html").write_text(
        '<em class="our-band">{{ band.label }}</em>\n', encoding="utf-8")
    plain = lab_project(tmp_path / "plain")
    build(ours, shared_cache)
    build(plain, shared_cache)
    mine = (ours / "site" / "index.html").read_text(encoding="utf-8")
    theirs = (plain / "site" / "index.html").read_text(encoding="utf-8")
    assert '<em class="our-band">' in mine and 'class="band band-' not in mine
    assert '<em class="our-band">' not in theirs and 'class="band band-reasonscore-' in theirs


def test_a_project_overrides_the_table_rows_and_intervals_of_its_model_pages(tmp_path, shared_cache):
    """Result rows, task rows, estimator rows and intervals are partials too (rendered once per
    row shape, then filled per row): a project's versions replace the built-in markup on its
    own model pages, with each row's values in them."""
    ours = lab_project(tmp_path / "ours")
    partials = ours / "templates" / "partials"
    partials.mkdir(parents=True, exist_ok=True)
    (partials / "result_row.html").write_text(
        '<tr class="our-result"><td>{{ metric }}</td><td>{{ score }}</td></tr>\n', encoding="utf-8")
    (partials / "task_row.html").write_text(
        '<tr class="our-task"><td>{{ task_label }}</td><td>{{ interval }}</td></tr>\n', encoding="utf-8")
    (partials / "estimator_row.html").write_text(
        '<tr class="our-estimators"><td>{{ task_label }}</td></tr>\n', encoding="utf-8")
    (partials / "interval.html").write_text(
        '{% if present %}<b class="our-iv">{{ text }}</b>{% else %}none{% endif %}\n', encoding="utf-8")
    build(ours, shared_cache)
    page = parse(next((ours / "site" / "models").glob("*.html")).read_text(encoding="utf-8"))
    tasks = [[td.text for td in tr.find_all("td")] for tr in page.find_all("tr", "our-task")]
    assert [t[0] for t in tasks] == ["arithmetic", "logic"]
    # Each task's interval through the overridden interval partial: "centre ± margin" on 0-1.
    assert all(re.fullmatch(r"0\.\d{3} ± 0\.\d{3}", t[1]) for t in tasks), tasks
    assert sum(len(tr.find_all("b", "our-iv")) for tr in page.find_all("tr", "our-task")) == 2
    assert [tr.text for tr in page.find_all("tr", "our-estimators")] == ["arithmetic", "logic"]
    results = [[td.text for td in tr.find_all("td")] for tr in page.find_all("tr", "our-result")]
    assert results and all(metric == "p_correct" for metric, _ in results), results
    assert not page.find_all("td", data_label="Reported by") and not page.find_all("span", "iv-text")


def test_a_row_partial_that_tests_or_filters_a_value_is_refused_naming_the_file(tmp_path, shared_cache):
    """A row partial is rendered once per shape and filled per row (fragments.Stencil): a test
    or filter on a value would see the placeholder, so the page would read otherwise than the
    same template in plain Jinja. Such an override stops the build, naming its file and line."""
    for source in ('<tr>{% if score %}<td>{{ score }}</td>{% endif %}</tr>\n',
                   '<tr><td>{{ metric | upper }}</td></tr>\n',
                   '<tr>\n<td>{{ score if agentic else metric }}</td></tr>\n'):
        ours = lab_project(tmp_path / f"ours{len(source)}")
        (ours / "templates" / "partials").mkdir(parents=True, exist_ok=True)
        (ours / "templates" / "partials" / "result_row.html").write_text(source, encoding="utf-8")
        with pytest.raises(InputError) as refused:
            build(ours, shared_cache)
        message = str(refused.value)
        assert "result_row.html" in message and "line " in message and "other than by placing it" in message
        assert not (ours / "site").exists()


def test_a_placing_row_partial_renders_as_plain_jinja_would():
    """Every built-in row partial, and one that places values anywhere any number of times,
    fills to exactly what Jinja renders from the same values."""
    import jinja2
    from markupsafe import Markup
    from reasonboard.site.fragments import Stencil
    from reasonboard.site.render import environment

    env = environment(Path(__file__).resolve().parents[1] / "templates")
    env.loader = jinja2.ChoiceLoader([jinja2.DictLoader({
        "partials/mine.html": '<a title="{{ b }}" href="{{ a }}">{{ b }}{% if on %}{{ a }}{% endif %}</a>\n'}),
        env.loader])
    values = {"a": "x<&>\"'{}", "b": Markup("<i>{b}</i>")}
    stencil = Stencil(env, "partials/mine.html", ("on",), ("a", "b"))
    for on in (False, True):
        plain = env.get_template("partials/mine.html").render(on=on, **values)
        escaped = {"a": str(jinja2.utils.markupsafe.escape(values["a"])), "b": values["b"]}
        assert stencil(on)(**escaped) == plain
