"""Round trip through the real client (issue 4): matches gnubg plays against itself →
``referee import`` → journal → ``referee export`` mat and sgf → gnubg imports both with no
warning and ends with the same position, score and games as the original."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli import main
from recording.journal import replay
from rules.ids import MatchId, match_id_of
from tests.recording.gnubg_tools import load, needs_gnubg, selfplay_many, strip_private

pytestmark = [pytest.mark.gnubg, needs_gnubg]

# Seeds chosen so that together they hold Crawford games, doubles, takes, drops and gammons.
MATCHES = [(1, 5), (2, 3), (6, 3), (3, 5)]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[int, int], tuple[Path, Path]]:
    folder = tmp_path_factory.mktemp("gnubg")
    return selfplay_many(folder, MATCHES)


def test_generated_matches_cover_cube_crawford_and_gammons(
    generated: dict[tuple[int, int], tuple[Path, Path]],
) -> None:
    mats = "".join(mat.read_text() for mat, _ in generated.values())
    sgfs = "".join(sgf.read_text() for _, sgf in generated.values())
    assert "Doubles =>" in mats and "Takes" in mats and "Drops" in mats
    assert "CrawfordGame" in sgfs
    import io

    from recording.mat import read_mat

    results = [r for mat, _ in generated.values() for r in read_mat(io.StringIO(mat.read_text())).state.results]  # type: ignore[union-attr]
    kinds = {r.result for r in results}
    assert "gammon" in kinds or "resign gammon" in kinds
    assert "drop" in kinds and any(r.cube > 1 for r in results)


@pytest.mark.parametrize("key", MATCHES, ids=[f"seed{s}-{n}pt" for s, n in MATCHES])
def test_round_trip_through_gnubg(
    key: tuple[int, int], generated: dict[tuple[int, int], tuple[Path, Path]], tmp_path: Path
) -> None:
    mat, sgf = generated[key]
    journal = tmp_path / "match.jsonl"
    assert main(["import", str(mat), "-o", str(journal)]) == 0
    out_mat, out_sgf = tmp_path / "out.mat", tmp_path / "out.sgf"
    assert main(["export", str(journal), "--format", "mat", "-o", str(out_mat)]) == 0
    assert main(["export", str(journal), "--format", "sgf", "-o", str(out_sgf)]) == 0

    # Byte for byte what gnubg itself wrote (its SGF minus private analysis properties).
    assert out_mat.read_text() == mat.read_text()
    assert out_sgf.read_text() == strip_private(sgf.read_text()).replace(
        "AP[GNU Backgammon:1.07.001]", "AP[referee:0.1.0]"
    )

    original, warnings = load(mat)
    assert warnings == []
    for exported in (out_mat, out_sgf):
        reread, warnings = load(exported)
        assert warnings == [], f"gnubg warned on {exported.name}: {warnings}"
        assert reread == original  # final position ID, match ID, number of games, each result

    # gnubg's own SGF (with its analysis properties) reads to the same journal.
    from_sgf = tmp_path / "from_sgf.jsonl"
    assert main(["import", str(sgf), "-o", str(from_sgf)]) == 0
    assert replay(from_sgf).events == replay(journal).events
    state = replay(journal).state
    assert state.match_over and len(state.results) == original["games"]

    # The referee's own Position ID and Match ID of the final state are gnubg's.
    last = state.last_result
    assert last is not None and last.on_roll is not None
    assert state.position_for(last.on_roll).id == original["position"]
    assert match_id_of(state) == MatchId.decode(original["match"])


DATA = Path(__file__).resolve().parents[1] / "data" / "gnubg"


@pytest.mark.parametrize("where", ["double pending", "mid-game"])
def test_unfinished_match_exports_load_in_gnubg_at_the_same_state(where: str, tmp_path: Path) -> None:
    """An unfinished journal (the referee's usual case) exports to files gnubg resumes exactly."""
    import io

    from recording.export import header_of
    from recording.mat import read_mat, write_mat
    from recording.sgf import write_sgf
    from rules import match

    imported = read_mat(io.StringIO((DATA / "sample_5pt.mat").read_text()))
    header = header_of(imported)
    doubles = [i for i, e in enumerate(imported.events) if isinstance(e, match.Double)]
    cut = doubles[1] + 1 if where == "double pending" else len(imported.events) - 41
    events = imported.events[:cut]
    state = match.replay(header.new_state(check_plays=False), events)
    assert state.phase == (match.CUBE if where == "double pending" else match.ROLL)
    assert state.on_roll is not None
    for name, writer in (("part.mat", write_mat), ("part.sgf", write_sgf)):
        out = io.StringIO()
        writer(out, header, events)
        (tmp_path / name).write_text(out.getvalue())
        seen, warnings = load(tmp_path / name)
        assert warnings == []
        assert seen["position"] == state.position_for(state.on_roll).id
        assert MatchId.decode(seen["match"]) == match_id_of(state)
