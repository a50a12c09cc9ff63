"""The dashboard's own words in the six languages of the table page (the rest comes from web_ui)."""

from __future__ import annotations

from collections.abc import Callable

from web_ui.i18n import DEFAULT, LANGUAGES, translator

WORDS: dict[str, dict[str, str]] = {
    "club.title": {"en": "Club", "ro": "Club", "ru": "Клуб", "bg": "Клуб", "tr": "Kulüp", "uz": "Klub"},
    "club.tables": {"en": "{n} tables", "ro": "{n} mese", "ru": "Столов: {n}", "bg": "Маси: {n}",
                    "tr": "{n} masa", "uz": "{n} ta stol"},
    "club.no_tables": {"en": "No table has reported yet.", "ro": "Nicio masă nu a raportat încă.",
                       "ru": "Ни один стол ещё не на связи.", "bg": "Още няма маса на връзка.",
                       "tr": "Henüz hiçbir masa bağlanmadı.", "uz": "Hali hech bir stol ulanmadi."},
    "club.online": {"en": "online", "ro": "conectată", "ru": "на связи", "bg": "на линия",
                    "tr": "çevrimiçi", "uz": "ulangan"},
    "club.offline": {"en": "offline", "ro": "deconectată", "ru": "нет связи", "bg": "няма връзка",
                     "tr": "çevrimdışı", "uz": "ulanmagan"},
    "club.alert": {"en": "Illegal play", "ro": "Mutare greșită", "ru": "Неправильный ход",
                   "bg": "Неправилен ход", "tr": "Kurala aykırı hamle", "uz": "Noto‘g‘ri yurish"},
    "club.question": {"en": "Check the reading", "ro": "Verificați citirea", "ru": "Проверьте доску",
                      "bg": "Проверете дъската", "tr": "Okumayı kontrol edin", "uz": "Taxtani tekshiring"},
    "club.device": {"en": "Device problem", "ro": "Problemă la aparat", "ru": "Неисправность устройства",
                    "bg": "Проблем с устройството", "tr": "Cihaz sorunu", "uz": "Qurilmada nosozlik"},
    "club.spectator": {"en": "Spectator view", "ro": "Pentru spectatori", "ru": "Для зрителей",
                       "bg": "За зрители", "tr": "İzleyici görünümü", "uz": "Tomoshabinlar uchun"},
    "club.director": {"en": "Director view", "ro": "Pentru arbitru-șef", "ru": "Для главного судьи",
                      "bg": "За главния съдия", "tr": "Başhakem görünümü", "uz": "Bosh hakam uchun"},
    "club.table_page": {"en": "Table page", "ro": "Pagina mesei", "ru": "Страница стола",
                        "bg": "Страница на масата", "tr": "Masa sayfası", "uz": "Stol sahifasi"},
    "club.last_event": {"en": "last event {s} s ago", "ro": "ultimul eveniment acum {s} s",
                        "ru": "последнее событие {s} с назад", "bg": "последно събитие преди {s} с",
                        "tr": "son olay {s} sn önce", "uz": "oxirgi voqea {s} s oldin"},
    "club.records": {"en": "Records of the club", "ro": "Partidele clubului", "ru": "Записи партий клуба",
                     "bg": "Записи на клуба", "tr": "Kulübün maç kayıtları", "uz": "Klub o‘yinlari yozuvlari"},
}


def club_translator(lang: str) -> Callable[..., str]:
    """web_ui's translator with the dashboard's words on top."""
    base = translator(lang)
    lang = lang if lang in LANGUAGES else DEFAULT

    def translate(key: str, default: str | None = None, **values: object) -> str:
        if key in WORDS:
            text = WORDS[key].get(lang) or WORDS[key][DEFAULT]
            return text.format(**values) if values else text
        return base(key, default, **values)

    return translate
