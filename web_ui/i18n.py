"""Languages of the page: English, Romanian, Russian, Bulgarian, Turkish, Uzbek, in the players' own words.

Each language is a flat JSON file in ``translations/``; a missing key falls back to English.
The language comes from the ``lang`` cookie (the switch), else the browser's Accept-Language.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from importlib import resources

from flask import Request

LANGUAGES: dict[str, str] = {
    "en": "English",
    "ro": "Română",
    "ru": "Русский",
    "bg": "Български",
    "tr": "Türkçe",
    "uz": "Oʻzbekcha",
}
DEFAULT = "en"
COOKIE = "lang"

Translator = Callable[..., str]


@functools.cache
def catalogue(lang: str) -> dict[str, str]:
    if lang not in LANGUAGES:
        lang = DEFAULT
    text = resources.files("web_ui").joinpath("translations", f"{lang}.json").read_text(encoding="utf-8")
    data = json.loads(text)
    return {str(k): str(v) for k, v in data.items()}


def translator(lang: str) -> Translator:
    own = catalogue(lang)
    english = catalogue(DEFAULT)

    def translate(key: str, default: str | None = None, **values: object) -> str:
        text = own.get(key) or english.get(key) or (default if default is not None else key)
        if values:
            try:
                return text.format(**values)
            except (KeyError, IndexError, ValueError):
                return text
        return text

    return translate


def pick_language(request: Request) -> str:
    chosen = request.cookies.get(COOKIE, "")
    if chosen in LANGUAGES:
        return chosen
    best = request.accept_languages.best_match(list(LANGUAGES))
    return best if best in LANGUAGES else DEFAULT


def js_strings(lang: str) -> dict[str, str]:
    """The few strings the page's script needs, for a ``<script type="application/json">`` block."""
    t = translator(lang)
    keys = [k for k in catalogue(DEFAULT) if k.startswith("js.")]
    return {k[3:]: t(k) for k in keys}
