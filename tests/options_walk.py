"""The one check of every entry point's options: each option an entry point is given is honoured (it is
in the entry point's table row of honoured options and construction keeps it) or refused with an
``ArgumentError`` naming where it goes (``cite_core.refuse_options`` over the adapter's ``ELSEWHERE``
table), or unknown to it (a ``TypeError`` naming it); an entry point that takes an option and does
neither ignores it, which fails.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import pytest

from cite_core import ArgumentError, calibrate_flag

OPTION_NAMES = ("calibration", "verify", "judge", "streaming")
"""The options real apps pass to every entry point (issue 31: some were accepted and ignored)."""

_SOURCE = "The harbour opened in 1850. Ferries leave every hour for the island."


def option_values(judge: Any) -> dict[str, Any]:
    """A value of each option that is not its default."""
    examples = [("The harbour opened in 1850.", _SOURCE, True)] * 10 + [
        ("The zoo has tigers.", _SOURCE, False)
    ] * 10
    return {"calibration": calibrate_flag(examples), "verify": True, "judge": judge, "streaming": True}


def check_entry(
    entry: str,
    make: Callable[..., Any],
    honoured: set[str],
    elsewhere: Mapping[str, Mapping[str, str]],
    values: Mapping[str, Any],
) -> dict[str, str]:
    """How ``make`` (the entry point with its required arguments) treats each option: ``honoured``,
    ``refused`` or ``unknown``; fails when an option is taken and not honoured."""
    outcomes = {}
    for name in OPTION_NAMES:
        given = {name: values[name]}
        if name == "judge" and "verify" in honoured:
            given["verify"] = values["verify"]  # judge= is the model of verify=True
        try:
            make(**given)
        except ArgumentError as exc:
            where = elsewhere.get(entry, {}).get(name)
            assert name not in honoured, f"{entry} refuses {name}= but the table says it honours it: {exc}"
            if where is None:  # unknown to it (a misspelt option), or refused by the entry point it wraps
                assert repr(name) in str(exc) or f"{name}=" in str(exc), (entry, name, exc)
                outcomes[name] = "unknown"
                continue
            # its own row's place, or the place an entry point it wraps names (the same option's row)
            places = [row[name] for row in elsewhere.values() if name in row]
            assert any(p in str(exc) for p in places) and f"{name}=" in str(exc), (entry, name, exc)
            outcomes[name] = "refused"
        except TypeError as exc:  # Python's own: an argument the entry point does not take at all
            assert repr(name) in str(exc) or name in str(exc), (entry, name, exc)
            outcomes[name] = "unknown"
        else:
            if name not in honoured:
                pytest.fail(f"{entry} took {name}= and ignores it: honour it or add it to ELSEWHERE")
            outcomes[name] = "honoured"
    return outcomes
