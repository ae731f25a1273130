# tests/cli/visual_common.sh: what every Xvfb test of the visual lab starts
# with; sourced after GPULAB is set. It requires Xvfb, skips (exit 0)
# when gpulab was built without the views, makes a temp folder $T removed
# at exit, and gives the helpers the tests assert with: get (a key of a
# --state JSON file, dotted), check (equal), less (numerically below), and
# $PIX (png_pixels.py), and xvfb (run a command on a screen of its own).
# A failed check sets fail=1; each test ends with `exit $fail`.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PIX="python3 $HERE/png_pixels.py"
if ! command -v Xvfb >/dev/null; then
  echo "FAIL: Xvfb is missing (apt-get install xvfb; .ci/bootstrap installs it)"; exit 1
fi
if "$GPULAB" view --screenshot /dev/null --frames 1 2>&1 | grep -q "built without the visual lab"; then
  echo "SKIP: this gpulab was built without the visual lab (GPULAB_VISUAL=OFF)"; exit 0
fi
T=$(mktemp -d)
XVFB_PID=
trap '[ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null; rm -rf "$T"' EXIT
# xvfb WxH CMD...: runs CMD on an Xvfb screen of its own and returns CMD's own
# exit status. Not xvfb-run: under ctest -j its -a picks display numbers that
# race, and its clean-up exits 5 when it cannot remove its temp folder, which
# hid the status the tests assert on (CI failed on 'got 5, want 2').
# Xvfb -displayfd picks a free display itself and says which once it is up.
xvfb() {
  local screen=$1 rc=0 i; shift
  : >"$T/display"
  Xvfb -displayfd 3 -screen 0 "${screen}x24" -nolisten tcp 3>"$T/display" 2>"$T/xvfb.log" &
  XVFB_PID=$!
  for ((i = 0; i < 200; i++)); do [ -s "$T/display" ] && break; sleep 0.05; done
  if [ ! -s "$T/display" ]; then
    echo "FAIL: Xvfb did not start: $(tail -3 "$T/xvfb.log")"; kill "$XVFB_PID" 2>/dev/null; XVFB_PID=; return 1
  fi
  DISPLAY=":$(head -1 "$T/display")" "$@" || rc=$?
  kill "$XVFB_PID" 2>/dev/null; wait "$XVFB_PID" 2>/dev/null || true; XVFB_PID=
  return $rc
}
fail=0
get() { python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v.get(k,"") if isinstance(v,dict) else ""
print(v if not isinstance(v,float) or v!=int(v) else int(v))' "$1" "$2"; }
check() { if [ "$2" = "$3" ]; then echo "ok: $1 ($2)"; else echo "FAIL: $1: got '$2', want '$3'"; fail=1; fi; }
less() {  # less NAME A B: A < B as numbers
  if python3 -c "import sys; sys.exit(0 if float('$2') < float('$3') else 1)"; then echo "ok: $1 ($2 < $3)"
  else echo "FAIL: $1: $2 is not below $3"; fail=1; fi; }
