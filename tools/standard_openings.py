"""Standard-chess openings: the start position (Chess960 position 518) after
random plies, kept when a short Backrank search calls them within 100 cp."""
import random, sys, chess, chess.engine
engine_cmd, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(seed)
eng = chess.engine.SimpleEngine.popen_uci(engine_cmd)
seen = set()
while len(seen) < count:
    board = chess.Board()
    for _ in range(rng.choice([6, 7, 8])):
        moves = list(board.legal_moves)
        if not moves: break
        board.push(rng.choice(moves))
    if board.is_game_over(): continue
    fen = board.fen()
    if fen in seen: continue
    info = eng.analyse(board, chess.engine.Limit(nodes=20000))
    cp = info["score"].white().score(mate_score=100000)
    if abs(cp) <= 100:
        seen.add(fen); print(fen, flush=True)
eng.quit()
