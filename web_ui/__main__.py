"""``python -m web_ui [--host H] [--port N] [--pin PIN] [--static]``: the page on the demo game.

Plays a short scripted backgammon game over and over (unless ``--static``) so the live page has
something to show.  Served with waitress; the data directory is ``REFEREE_DATA_DIR`` or ``data``.
"""

from __future__ import annotations

import argparse
import os
import threading
from pathlib import Path

from web_ui import create_app, serve
from web_ui.demo_view import DemoGame, run_script


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m web_ui", description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (0.0.0.0 for the LAN)")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--pin", default=None, help="set this PIN if none is set yet")
    parser.add_argument("--static", action="store_true", help="do not play the scripted demo game")
    parser.add_argument("--threads", type=int, default=64)
    args = parser.parse_args(argv)
    data_dir = Path(os.environ.get("REFEREE_DATA_DIR") or "data")
    game = DemoGame(records_dir=data_dir / "records")
    app = create_app(game, game, {"DATA_DIR": str(data_dir), "PIN": args.pin})
    stop = threading.Event()
    if not args.static:
        threading.Thread(target=run_script, args=(game, stop), daemon=True, name="demo-script").start()
    print(f"companion page on http://{args.host}:{args.port}/ (data in {data_dir})", flush=True)
    try:
        serve(app, host=args.host, port=args.port, threads=args.threads)
    finally:
        stop.set()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
