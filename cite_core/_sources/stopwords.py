"""Term-analysis data: stop words (English and Spanish) and the suffixes the light stemmer strips."""

from __future__ import annotations

__all__ = ["CJK_STOP", "STOP", "SUFFIXES"]

STOP = frozenset(
    """a an and are as at be been being but by can could did do does for from had has have he her
    his how i if in into is it its itself me my of on or our she so such than that the their
    them then there these they this those to was we were what when where which while who whom
    why will with would you your also about after again all any because before both each few
    further more most other over own same some just only not no nor very s t don should now may
    might must shall upon per via yes el la los las lo un una unos unas y o u e de del al a en
    con por para que se su sus es son fue fueron como más mas pero sin sobre entre ya le les me
    mi mis te tu tus nos este esta estos estas ese esa esos esas aquel aquella ha han he hay ser
    era eran sido muy también tambien cuando donde quien quienes cual cuales porque si no ni
    desde hasta""".split()
)
"""Words that carry no claim: never a term of a claim or a source unit."""

CJK_STOP = frozenset("的了是在和也就都而及与着或之于")
"""Chinese function characters dropped from CJK terms."""

SUFFIXES = tuple(
    """ational ization fulness ousness iveness mente ciones amiento imiento ation ition ción sión
    ments ment ness ings ing edly ies ied ed es ly s""".split()
)
"""Suffixes the stemmer strips, longest first within each family (order matters)."""
