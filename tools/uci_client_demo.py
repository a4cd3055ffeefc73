#!/usr/bin/env python3
"""Backrank in a real UCI client (python-chess): pondering and MultiPV.

Plays a short Chess960 game of Backrank against itself through
python-chess's engine API with pondering on (python-chess sends
`go ponder` on the expected reply and `ponderhit` or `stop` as the game
goes), then asks for a three-line MultiPV analysis with UCI_ShowWDL.
Prints what the client saw. Needs `pip install chess`.

    python3 tools/uci_client_demo.py [path/to/backrank] [moves]
"""

import sys

import chess
import chess.engine

ENGINE = sys.argv[1] if len(sys.argv) > 1 else "target/release/backrank"
MOVES = int(sys.argv[2]) if len(sys.argv) > 2 else 12
START = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"


def main() -> None:
    board = chess.Board(START, chess960=True)
    white = chess.engine.SimpleEngine.popen_uci(ENGINE)
    black = chess.engine.SimpleEngine.popen_uci(ENGINE)
    pondered = 0
    try:
        clocks = {chess.WHITE: 5.0, chess.BLACK: 5.0}
        while not board.is_game_over() and board.fullmove_number < 9 + MOVES:
            engine = white if board.turn == chess.WHITE else black
            limit = chess.engine.Limit(white_clock=clocks[chess.WHITE], black_clock=clocks[chess.BLACK],
                                       white_inc=0.05, black_inc=0.05)
            result = engine.play(board, limit, ponder=True, info=chess.engine.INFO_ALL)
            if result.ponder is not None:
                pondered += 1
            spent = result.info.get("time", 0.0)
            clocks[board.turn] += 0.05 - spent
            print(f"{board.fullmove_number:3}{'.' if board.turn else '...'} {board.san(result.move):8}"
                  f" score {result.info.get('score')}  depth {result.info.get('depth')}"
                  f"  ponder {result.ponder}")
            board.push(result.move)
        print(f"moves with a ponder move: {pondered}; final position {board.fen()}")

        print("\nMultiPV 3 with UCI_ShowWDL, 1 second:")
        # python-chess sets Ponder and MultiPV itself (ponder=True, multipv=3).
        white.configure({"UCI_ShowWDL": True})
        infos = white.analyse(board, chess.engine.Limit(time=1.0), multipv=3)
        for info in infos:
            wdl = info.get("wdl")
            line = board.variation_san(info["pv"][:6])
            print(f"  multipv {info['multipv']}: score {info['score'].relative} wdl {wdl and tuple(wdl.relative)}"
                  f" depth {info['depth']}  {line}")
    finally:
        white.quit()
        black.quit()


if __name__ == "__main__":
    main()
