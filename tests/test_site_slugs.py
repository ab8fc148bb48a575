"""Slugs: safe file names, unique, stable (PRODUCT.md "Outputs": slugs)."""

from hypothesis import given
from hypothesis import strategies as st
from reasonboard.slugs import MAX_LENGTH, is_safe_slug, slugify, unique_slugs


def test_readable_names_keep_their_words():
    assert slugify("Aurora-7B Instruct") == "aurora-7b-instruct"
    assert slugify("Marigold 405B|zerocot|t0.7-8k") == "marigold-405b-zerocot-t0-7-8k"
    assert slugify("Ünïcode Módel") == "unicode-model"


def test_nothing_readable_or_dangerous_still_gives_a_safe_slug():
    for name in ["", "???", "模型", "..", ".", "/", "../../etc/passwd", "con", "NUL", "<script>"]:
        slug = slugify(name)
        assert is_safe_slug(slug), (name, slug)
        assert slug not in ("", ".", "..")
    assert slugify("../../etc/passwd") == "etc-passwd"
    assert slugify("con") != "con"


def test_long_names_are_cut_with_a_hash_so_shared_prefixes_stay_apart():
    a, b = "x" * 200 + "a", "x" * 200 + "b"
    assert len(slugify(a)) <= MAX_LENGTH
    assert slugify(a) != slugify(b)


def test_collisions_get_hash_suffixes_that_do_not_depend_on_order_or_company():
    names = ["Model A", "model-a", "Model B"]
    slugs = unique_slugs(names)
    assert len(set(slugs)) == 3
    assert slugs[2] == "model-b"
    assert slugs[0].startswith("model-a-") and slugs[1].startswith("model-a-")
    # Same slugs in another order, and a colliding name's slug does not depend on unrelated names.
    assert unique_slugs(list(reversed(names))) == list(reversed(slugs))
    assert unique_slugs(["Model A", "model-a"]) == slugs[:2]


def test_a_suffixed_slug_cannot_collide_with_a_plain_one():
    first = unique_slugs(["Model A", "model-a"])
    # A third name whose plain slug is exactly one of the suffixed slugs.
    slugs = unique_slugs(["Model A", "model-a", first[0]])
    assert len(set(slugs)) == 3


def test_a_name_listed_twice_is_an_error():
    try:
        unique_slugs(["a", "a"])
    except ValueError as exc:
        assert "twice" in str(exc)
    else:
        raise AssertionError("duplicate names must be refused")


@given(st.lists(st.text(max_size=120), unique=True, max_size=30))
def test_any_names_give_unique_safe_stable_slugs(names):
    slugs = unique_slugs(names)
    assert len(set(slugs)) == len(names)
    assert all(is_safe_slug(s) for s in slugs)
    assert unique_slugs(names) == slugs


_names = st.sampled_from(["Aurora 70B", "aurora-70b", "模型", "con", "a/../b", "x" * 120, "Basalt"])
_triples = st.lists(st.tuples(_names, st.sampled_from(["zerocot", "ZeroCoT", "cot"]),
                              st.sampled_from(["greedy", "t0.7", "t0-7", "..."])), unique=True, max_size=12)


@given(_triples, _triples)
def test_evaluation_pages_are_unique_safe_and_a_models_page_ignores_its_evaluations(triples, others):
    from reasonboard.slugs import evaluation_slugs

    slugs = evaluation_slugs(triples)
    assert len({s.page for s in slugs}) == len(triples) and len({s.anchor for s in slugs}) == len(triples)
    for (model, _, _), s in zip(triples, slugs):
        assert all(is_safe_slug(part) for part in s.page.split("/")) and is_safe_slug(s.anchor)
        assert s.page.split("/")[0] == s.model
        # The model's page depends on the model names present, not on how many evaluations any
        # model has: the same model names with other template/sampler pairs give the same slug.
        same_models = [(m, "t", "s") for m in dict.fromkeys(m for m, _, _ in triples)]
        assert dict(zip(same_models, evaluation_slugs(same_models)))[(model, "t", "s")].model == s.model
    # A model's page never clashes with another model's evaluation directory page.
    assert not {s.model for s in slugs} & {s.page for s in slugs if "/" in s.page}
    # Adding evaluations of other models leaves these pages alone unless model slugs collide.
    more = [t for t in others if t[0] not in {m for m, _, _ in triples}]
    combined = evaluation_slugs([*triples, *more])[:len(triples)]
    if {slugify(m) for m, _, _ in more}.isdisjoint({slugify(m) for m, _, _ in triples}):
        assert [c.page for c in combined] == [s.page for s in slugs]
