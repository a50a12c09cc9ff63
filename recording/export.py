"""Exports derived from a journal, written atomically, and imports that become journals.

``export_journal(journal_path, "mat")`` renders one of :data:`FORMATS`; :func:`write_atomic`
writes it to a temporary file beside the target, fsyncs it, renames it over the target and fsyncs
the directory, so a reader sees the old file or the new one, never half of one.
:func:`import_match` reads a ``.mat`` or ``.sgf`` file (validating every play) and
:func:`import_to_journal` stores it as a new journal, also atomically.
"""

from __future__ import annotations

import io
import os
import stat
import tempfile
from collections.abc import Callable
from typing import IO

from recording import jsonfmt, mat, sgf, txt
from recording.journal import Header, Journal, fsync_dir, replay
from recording.moves import ImportedMatch, RecordError

FORMATS = ("mat", "sgf", "json", "txt")


def render(journal: Journal, fmt: str) -> str:
    """The text of ``journal`` in format ``fmt`` (one of :data:`FORMATS`)."""
    buffer = io.StringIO()
    first_time = journal.records[0].time if journal.records else ""
    if fmt == "mat":
        mat.write_mat(buffer, journal.header, journal.events, first_time=first_time)
    elif fmt == "sgf":
        sgf.write_sgf(buffer, journal.header, journal.events, first_time=first_time)
    elif fmt == "txt":
        txt.write_txt(buffer, journal.header, journal.events, first_time=first_time)
    elif fmt == "json":
        jsonfmt.write_json(buffer, journal.header, journal.records)
    else:
        raise RecordError(f"unknown export format {fmt!r}; formats: {', '.join(FORMATS)}")
    return buffer.getvalue()


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Replace ``path`` with ``text`` so that a crash leaves the old file or the new one.

    Only a regular file (or a new name) is replaced: a symbolic link, a directory or a socket is
    refused, and a device or FIFO (``/dev/stdout``, a pipe) is written through, as any tool would.
    A new file gets the usual mode (0666 less the umask); a replaced one keeps its mode.
    """
    target = os.fspath(path)
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):
        if stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode):
            _write_through(target, text)
            return
        kind = "a symbolic link" if stat.S_ISLNK(info.st_mode) else _kind(info.st_mode)
        raise RecordError(f"{target} is {kind}, not a regular file: not replaced (give the file itself)")
    mode = stat.S_IMODE(info.st_mode) if info is not None else 0o666 & ~_umask()
    directory = os.path.dirname(os.path.abspath(target))
    fd, temporary = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".", suffix=".tmp", dir=directory)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    fsync_dir(directory)


def _write_through(target: str, text: str) -> None:
    """Write into a device or FIFO the user named (it is not a file to replace)."""
    fd = os.open(target, os.O_WRONLY | os.O_NOCTTY)
    with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as stream:
        stream.write(text)
        stream.flush()


class DamagedJournal(RecordError):
    """A journal whose record would leave something out; ``--salvage`` exports what survives."""


def damage_summary(journal: Journal) -> tuple[str, str]:
    """(what is damaged, what a record of it leaves out), in words."""
    damage = journal.damage
    where = "; ".join(f"line {d.line}: {d.reason}" for d in damage[:3])
    if len(damage) > 3:
        where += f"; and {len(damage) - 3} more damaged line(s)"
    if journal.gap is not None:
        gap = journal.gap
        left = gap.last - gap.first + 1 + gap.after
        return where, (f"the record stops after event {gap.first - 1}: {left} event(s) left out "
                       f"({gap}, which cannot be replayed without the missing ones)")
    if damage and damage[0].tail:
        return where, f"the torn tail ({damage[0].cut_bytes} bytes) is left out; every complete event is in"
    return where, "the damaged line(s) are left out; no event is missing"


def export_journal(
    journal_path: str | os.PathLike[str], fmt: str, out_path: str | os.PathLike[str] | None = None,
    *, salvage: bool = False, warn: Callable[[str], None] | None = None,
) -> str:
    """Export a journal (read-only); returns the path written.

    A damaged journal is refused (:class:`DamagedJournal` saying what is damaged and what the
    record would leave out) unless ``salvage``: then what survives is exported and ``warn`` is
    told the same.
    """
    if fmt not in FORMATS:
        raise RecordError(f"unknown export format {fmt!r}; formats: {', '.join(FORMATS)}")
    journal = replay(journal_path, check_plays=False)
    if journal.damage:
        where, left_out = damage_summary(journal)
        if not salvage:
            raise DamagedJournal(f"{os.fspath(journal_path)} is damaged ({where}); {left_out}. "
                                 "Nothing written: --salvage exports what survives")
        if warn is not None:
            warn(f"{os.fspath(journal_path)} is damaged ({where}); {left_out}")
    text = render(journal, fmt)
    if out_path is None:
        base = os.fspath(journal_path)
        stem = base[: -len(".jsonl")] if base.endswith(".jsonl") else base
        out_path = f"{stem}.{fmt}"
    write_atomic(out_path, text)
    return os.fspath(out_path)


def read_match(stream: IO[str], fmt: str) -> ImportedMatch:
    if fmt == "mat":
        return mat.read_mat(stream)
    if fmt == "sgf":
        return sgf.read_sgf(stream)
    raise RecordError(f"cannot import {fmt!r} files; formats: mat, sgf")


def import_match(path: str | os.PathLike[str]) -> ImportedMatch:
    """Read a ``.mat`` or ``.sgf`` file (by extension, else by content), validating every play."""
    name = os.fspath(path)
    fmt = os.path.splitext(name)[1].lower().lstrip(".")
    info = os.stat(name)
    if not stat.S_ISREG(info.st_mode):
        # a FIFO with no writer would block open() forever; a device never ends
        raise RecordError(f"{name}: not a regular file ({_kind(info.st_mode)}); import reads match files")
    size = info.st_size
    limit = mat.MAX_BYTES
    if size > limit:
        raise RecordError(f"{name}: file too large ({size >> 20} MB; limit {limit >> 20} MB), not a match file")
    with open(name, encoding="utf-8", errors="strict", newline="\n") as stream:  # lone CRs stay visible
        if fmt not in ("mat", "sgf"):
            try:
                start = stream.read(4096)
            except UnicodeDecodeError:
                raise RecordError(f"{name}: not text (binary data?)") from None
            fmt = "sgf" if start.lstrip().startswith("(") else "mat"
            stream.seek(0)
        try:
            return read_match(stream, fmt)
        except RecordError as error:
            raise type(error)(f"{name}: {error}") from None


def _kind(mode: int) -> str:
    for test, kind in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISDIR, "a directory"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return kind
    return "not a file"


def header_of(imported: ImportedMatch, device: str = "") -> Header:
    return Header(
        variant="backgammon",
        match_length=imported.length,
        players=imported.players,
        options=imported.options,
        device=device,
        event=imported.event,
        site=imported.site,
        round=imported.round,
        date=imported.date,
        extra=imported.extra,
    ).normalised()


def import_to_journal(
    source: str | os.PathLike[str], journal_path: str | os.PathLike[str], *, device: str = ""
) -> Journal:
    """Read ``source`` and store it as a new journal at ``journal_path`` (refused if it exists)."""
    target = os.fspath(journal_path)
    if os.path.exists(target):
        raise RecordError(f"{target} exists; choose a new journal name")
    imported = import_match(source)
    directory = os.path.dirname(os.path.abspath(target))
    temporary = os.path.join(directory, f".{os.path.basename(target)}.{os.getpid()}.importing")
    journal = Journal.create(temporary, header_of(imported, device), check_plays=False)
    try:
        journal.append_many(imported.events)
        journal.close()
        try:
            os.link(temporary, target)  # fails instead of overwriting a journal created meanwhile
            os.unlink(temporary)
        except FileExistsError:
            raise
        except OSError:  # a file system without hard links (FAT): check, then rename
            if os.path.exists(target):
                raise FileExistsError(f"{target} exists; choose a new journal name") from None
            os.replace(temporary, target)
        fsync_dir(directory)
    except BaseException:
        journal.close()
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    journal.path = target
    return journal
