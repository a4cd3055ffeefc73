#!/usr/bin/env bash
# Proves the Windows build under Wine (issue 50), against the Linux build:
#
#   session  a UCI session as a Windows GUI holds it, every line ending in
#            CR LF: uci, isready, Hash 1024, Threads 2, SyzygyPath with two
#            folders separated by `;`, UCI_Chess960, a Chess960 search that
#            may castle, a tablebase position, quit;
#   bench    `bench` gives the Linux build's node count;
#   perft    the 960 Chess960 start positions at depth 5 (PERFT_DEPTH) and
#            the 300 Chess960/DFRC castling middlegames at depth 4, all
#            against their published counts, in one Wine process each;
#   match    GAMES (40) games at TC (5+0.05), Windows build under Wine
#            against the Linux build, with ../shared/tools/match.py (MATCH):
#            no illegal move, time loss or crash allowed.
#
#   tools/wine_check.sh [session] [bench] [perft] [match]   (default: all)
#
# It installs nothing. It needs Wine (Debian 12: apt-get install -y wine64,
# which brings `wine`), python3 with python-chess for the match (pip install
# chess), and both builds: `make windows` (backrank.exe) and `make`
# (./backrank); EXE and LINUX name others. Wine runs in its own prefix,
# WINEPREFIX (default /tmp/backrank-wine-$UID), made on the first run.
# Logs, the match's PGN and the tablebase folders go to LOG
# (target/wine-check). Exit status 0 when every step passed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

EXE=${EXE:-backrank.exe}
LINUX=${LINUX:-./backrank}
WINE=${WINE:-$(command -v wine64 || command -v wine || true)}
WINESERVER=${WINESERVER:-$(command -v wineserver || true)}
export WINEPREFIX=${WINEPREFIX:-${TMPDIR:-/tmp}/backrank-wine-$(id -u)}
export WINEDEBUG=${WINEDEBUG:--all}
GAMES=${GAMES:-40}
TC=${TC:-5+0.05}
SEED=${SEED:-1}
PERFT_DEPTH=${PERFT_DEPTH:-5}
MATCH=${MATCH:-../shared/tools/match.py}
OPENINGS=${OPENINGS:-tests/data/frc960.epd}
LOG=${LOG:-target/wine-check}

steps=("$@")
((${#steps[@]})) || steps=(session bench perft match)
wants() { [[ " ${steps[*]} " == *" $1 "* ]]; }

# --- What it needs -----------------------------------------------------------
missing=()
[[ -n $WINE ]] || missing+=("Wine (apt-get install -y wine64)")
[[ -f $EXE ]] || missing+=("$EXE (make windows)")
[[ -x $LINUX ]] || missing+=("$LINUX (make)")
if wants match; then
    [[ -f $MATCH ]] || missing+=("match.py at $MATCH (MATCH=...)")
    python3 -c 'import chess' 2>/dev/null || missing+=("python-chess (pip install chess)")
fi
if ((${#missing[@]})); then
    printf 'wine_check.sh: missing: %s\n' "${missing[@]}" >&2
    exit 2
fi
EXE=$(realpath "$EXE")
LINUX=$(realpath "$LINUX")
mkdir -p "$LOG"
LOG=$(realpath "$LOG")

failures=0
pass() { echo "PASS $1: $2"; }
fail() {
    echo "FAIL $1: $2"
    failures=$((failures + 1))
}

[[ -d $WINEPREFIX ]] || echo "Making the Wine prefix $WINEPREFIX (once)"
echo "Wine: $("$WINE" --version 2>/dev/null), prefix $WINEPREFIX"
echo "Windows build: $EXE: $("$WINE" "$EXE" --version 2>/dev/null | tr -d '\r')"
echo "Linux build:   $LINUX: $("$LINUX" --version 2>&1)"
# One wineserver for the whole run (a game or a perft suite does not pay
# for starting it), stopped at the end; it belongs to this prefix alone.
if [[ -n $WINESERVER ]]; then
    "$WINESERVER" -p
    trap '"$WINESERVER" -k 2>/dev/null' EXIT
fi

# --- UCI session -----------------------------------------------------------------
# The engine runs as a coprocess; `send` writes a line ending in CR LF,
# `expect` reads until a line matches (a regex), within a timeout, and
# keeps the lines read in `$lines`.
send() {
    printf '%s\r\n' "$1" >&"${ENGINE[1]}"
    echo "> $1" >>"$LOG/session.log"
}
expect() {
    local pattern=$1 timeout=$2 line
    lines=()
    while IFS= read -r -t "$timeout" line <&"${ENGINE[0]}"; do
        line=${line%$'\r'}
        echo "< $line" >>"$LOG/session.log"
        lines+=("$line")
        [[ $line =~ $pattern ]] && return 0
    done
    return 1
}
# The `info string` lines among `$lines`, joined.
strings() { printf '%s\n' "${lines[@]}" | grep '^info string' | paste -sd '|'; }

# Two table folders, 3-piece tables in one and 4-piece in the other: only
# both together give the 70 files that tests/data/syzygy holds. Named as a
# Windows user would, with backslashes, from the root of Wine's drive for /.
tablebase_folders() {
    rm -rf "$LOG/tb3" "$LOG/tb4"
    mkdir -p "$LOG/tb3" "$LOG/tb4"
    local file name
    for file in tests/data/syzygy/*.rtb?; do
        name=$(basename "$file")
        name=${name%.*}
        name=${name//v/}
        cp "$file" "$LOG/tb${#name}/"
    done
}

session() {
    : >"$LOG/session.log"
    tablebase_folders
    local tb3=${LOG//\//\\}\\tb3 tb4=${LOG//\//\\}\\tb4
    coproc ENGINE { "$WINE" "$EXE" 2>>"$LOG/session.err"; }
    local pid=$ENGINE_PID
    send "uci"
    if expect '^uciok$' 60; then
        local name
        name=$(printf '%s\n' "${lines[@]}" | grep -m1 '^id name ' || true)
        if [[ $name =~ ^id\ name\ Backrank\ [0-9.]+\ \((.+)\)$ ]] &&
            printf '%s\n' "${lines[@]}" | grep -q '^option name UCI_Chess960 type check'; then
            pass session "uci: '$name', UCI_Chess960 offered"
        else
            fail session "uci answered: ${lines[*]}"
        fi
    else
        fail session "no uciok"
    fi
    send "isready"
    expect '^readyok$' 30 && pass session "isready: readyok" || fail session "no readyok"
    send "setoption name Hash value 1024"
    send "setoption name Threads value 2"
    send "setoption name SyzygyPath value $tb3;$tb4"
    send "setoption name UCI_Chess960 value true"
    send "isready"
    if expect '^readyok$' 60; then
        local said
        said=$(strings)
        if [[ $said == "info string found 70 Syzygy table files, up to 4 pieces" ]]; then
            pass session "Hash 1024, Threads 2, UCI_Chess960 true taken; SyzygyPath '$tb3;$tb4': $said"
        else
            fail session "setoption answered: '$said' (expected only the 70 tables found)"
        fi
    else
        fail session "no readyok after setoption (Hash 1024?)"
    fi
    # A Chess960 middlegame where White may castle either way (h1 or b1
    # rook: in Chess960 notation the king takes its rook).
    send "ucinewgame"
    send "position fen 1rk1r3/pppq1ppp/2np1n2/4p3/4P3/2NP1N2/PPPQ1PPP/1RK1R2B w BEbe - 0 1 moves d2e2 d7e7"
    send "go movetime 3000"
    if expect '^bestmove ' 30; then
        local best=${lines[-1]} info
        info=$(printf '%s\n' "${lines[@]}" | grep ' pv ' | tail -n 1)
        if [[ $best =~ ^bestmove\ [a-h][1-8][a-h][1-8][qrbn]?( ponder [a-h][1-8][a-h][1-8][qrbn]?)?$ ]]; then
            pass session "go movetime 3000 (2 threads): $best; last info: $info"
        else
            fail session "go answered '$best'"
        fi
    else
        fail session "no bestmove within 30 s of go movetime 3000"
    fi
    # A 4-piece position, whose table is in the second folder.
    send "position fen 8/8/8/3rk3/8/8/8/KQ6 w - - 0 1"
    send "go depth 10"
    if expect '^bestmove ' 30; then
        local hits
        hits=$(printf '%s\n' "${lines[@]}" | grep -o 'tbhits [0-9]*' | tail -n 1)
        if [[ -n $hits && $hits != "tbhits 0" ]]; then
            pass session "KQvKR from the second folder: ${lines[-1]}, $hits"
        else
            fail session "KQvKR: no tablebase hits (${lines[*]: -2})"
        fi
    else
        fail session "no bestmove for the tablebase position"
    fi
    send "quit"
    local waited=0
    while kill -0 "$pid" 2>/dev/null && ((waited < 20)); do
        sleep 0.5
        waited=$((waited + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
        fail session "still running 10 s after quit"
        kill "$pid" 2>/dev/null
    else
        wait "$pid" 2>/dev/null
        local status=$?
        ((status == 0)) && pass session "quit: exit status 0" || fail session "quit: exit status $status"
    fi

    # Windows paths with a drive letter (Z: is Wine's /).
    coproc ENGINE { "$WINE" "$EXE" 2>>"$LOG/session.err"; }
    pid=$ENGINE_PID
    send "setoption name SyzygyPath value Z:$tb3;Z:$tb4"
    send "isready"
    if expect '^readyok$' 60 && [[ $(strings) == "info string found 70 Syzygy table files, up to 4 pieces" ]]; then
        pass session "SyzygyPath 'Z:$tb3;Z:$tb4' (drive letters): $(strings)"
    else
        fail session "SyzygyPath 'Z:$tb3;Z:$tb4' (drive letters) gave '$(strings)'"
    fi
    send "quit"
    wait "$pid" 2>/dev/null
}

# --- bench ---------------------------------------------------------------------------
nodes() { tr -d '\r' | sed -n 's/^Nodes searched: *//p' | tail -n 1; }

bench() {
    local windows linux
    windows=$("$WINE" "$EXE" bench 2>/dev/null | tee "$LOG/bench-windows.log" | nodes)
    linux=$("$LINUX" bench 2>/dev/null | tee "$LOG/bench-linux.log" | nodes)
    if [[ -n $windows && $windows == "$linux" ]]; then
        pass bench "Windows under Wine $windows nodes, Linux $linux nodes"
    else
        fail bench "Windows under Wine '$windows' nodes, Linux '$linux' nodes"
    fi
}

# --- perft -------------------------------------------------------------------------------
# `suite FILE DEPTH`: every position of FILE (`FEN ;D1 n ;D2 n ...`) at DEPTH.
suite() {
    local file=$1 depth=$2 name
    name=$(basename "$file" .epd)
    awk -F ';' -v d="D$depth " '{
        for (i = 2; i <= NF; i++) if (index($i, d) == 1) { split($i, f, " "); print f[2] }
    }' "$file" >"$LOG/$name-expected"
    awk -F ';' -v d="$depth" '{ sub(/ +$/, "", $1); printf "position fen %s\r\ngo perft %s\r\n", $1, d }' "$file" |
        { printf 'setoption name UCI_Chess960 value true\r\n'; cat; printf 'quit\r\n'; } >"$LOG/$name-input"
    local start=$SECONDS
    "$WINE" "$EXE" <"$LOG/$name-input" 2>/dev/null | tr -d '\r' |
        sed -n 's/^Nodes searched: *//p' >"$LOG/$name-found"
    local positions found wrong
    positions=$(wc -l <"$LOG/$name-expected")
    found=$(wc -l <"$LOG/$name-found")
    wrong=$(paste "$LOG/$name-expected" "$LOG/$name-found" | awk '$1 != $2' | wc -l)
    if ((positions > 0 && found == positions && wrong == 0)); then
        pass perft "$name: $positions positions at depth $depth, every count as published ($((SECONDS - start)) s)"
    else
        fail perft "$name: $positions positions at depth $depth, $found answered, $wrong wrong"
    fi
}

perft() {
    suite tests/data/frc960-perft.epd "$PERFT_DEPTH"
    suite tests/data/frc-castling-perft.epd 4
}

# --- match ------------------------------------------------------------------------------
match() {
    echo "match: $GAMES games at $TC, openings $OPENINGS (seed $SEED), PGN $LOG/match.pgn"
    python3 "$MATCH" --engine "$WINE $EXE" --name-a "Backrank-Windows-Wine" \
        --vs "$LINUX" --name-b "Backrank-Linux" --tc "$TC" --games "$GAMES" --concurrency 1 \
        --openings "$OPENINGS" --random-openings "$SEED" --pgn "$LOG/match.pgn" 2>&1 |
        tee "$LOG/match.log" | grep -E '^(game|===|W/D/L|pentanomial|faults|Elo)'
    local faults elo
    faults=$(grep '^faults A/B:' "$LOG/match.log" | tail -n 1)
    elo=$(grep '^Elo:' "$LOG/match.log" | tail -n 1)
    local games
    games=$(grep -c '^game ' "$LOG/match.log")
    if [[ $faults == "faults A/B: time 0/0, illegal 0/0, crash 0/0" && $games -ge $GAMES ]]; then
        pass match "$games games: $elo; $faults"
    else
        fail match "$games games: ${elo:-no result}; ${faults:-no fault line}"
    fi
}

for step in "${steps[@]}"; do
    case $step in
        session | bench | perft | match) "$step" ;;
        *)
            echo "wine_check.sh: unknown step '$step' (session, bench, perft, match)" >&2
            exit 2
            ;;
    esac
done
if ((failures)); then
    echo "wine_check.sh: $failures check(s) failed; logs in $LOG"
    exit 1
fi
echo "wine_check.sh: all passed; logs in $LOG"
