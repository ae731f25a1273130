# tests/cli/visual_common.sh: what every Xvfb test of the visual lab starts
# with; sourced after GPULAB is set. It requires xvfb-run, skips (exit 0)
# when gpulab was built without the views, makes a temp folder $T removed
# at exit, and gives the helpers the tests assert with: get (a key of a
# --state JSON file, dotted), check (equal), less (numerically below), and
# $PIX (png_pixels.py). A failed check sets fail=1; each test ends with
# `exit $fail`.
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PIX="python3 $HERE/png_pixels.py"
if ! command -v xvfb-run >/dev/null; then
  echo "FAIL: xvfb-run is missing (apt-get install xvfb; .ci/bootstrap installs it)"; exit 1
fi
if "$GPULAB" view --screenshot /dev/null --frames 1 2>&1 | grep -q "built without the visual lab"; then
  echo "SKIP: this gpulab was built without the visual lab (GPULAB_VISUAL=OFF)"; exit 0
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
get() { python3 -c 'import json,sys
v=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): v=v.get(k,"") if isinstance(v,dict) else ""
print(v if not isinstance(v,float) or v!=int(v) else int(v))' "$1" "$2"; }
check() { if [ "$2" = "$3" ]; then echo "ok: $1 ($2)"; else echo "FAIL: $1: got '$2', want '$3'"; fail=1; fi; }
less() {  # less NAME A B: A < B as numbers
  if python3 -c "import sys; sys.exit(0 if float('$2') < float('$3') else 1)"; then echo "ok: $1 ($2 < $3)"
  else echo "FAIL: $1: $2 is not below $3"; fail=1; fi; }
