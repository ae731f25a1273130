#!/usr/bin/env bash
# Every figure a lesson's README cites is listed in its lesson.toml
# ([[figures]]) with the command that produces it, and this test runs those
# commands and compares: a change to the simulator that moves a figure fails
# here until the text is updated. Each figure names
#   text     the figure exactly as the README prints it
#   command  a command the lesson runs: one of its steps' `run` lines,
#            `gpulab check LESSON/EXERCISE --solution` (this lesson or an earlier
#            one), or `gpulab check` --file F of a file one of its `measure`
#            steps shows; always with --json
#   json     where the value is in that command's JSON (a.b.0.c; key=value
#            picks the list element whose key has that value)
#   format   a Python format spec for the value ("{:,}", "{:.1%}", ...)
#   scale    optional factor applied first (1000: ms in the JSON, us in the text)
#   context  strings (problem size, GPU model, ...) that must appear in the
#            same README paragraph as the figure, so the text says what was run
set -u
GPULAB=${1:?usage: lesson_figures.sh path/to/gpulab}
python3 - "$GPULAB" <<'PY'
import json, os, re, shlex, subprocess, sys, tomllib
gpulab = sys.argv[1]
fails, checked, cache = 0, 0, {}

def fail(msg):
    global fails
    fails += 1
    print("FAIL:", msg)

def lookup(doc, path):
    for part in path.split("."):
        if isinstance(doc, list):
            if "=" in part:
                k, v = part.split("=", 1)
                doc = next(e for e in doc if str(e.get(k)) == v)
            else:
                doc = doc[int(part)]
        else:
            doc = doc[part]
    return doc

def run(cmd):
    if cmd not in cache:
        argv = shlex.split(cmd)
        assert argv[0] == "gpulab", cmd
        p = subprocess.run([gpulab] + argv[1:], capture_output=True, text=True)
        try:
            cache[cmd] = json.loads(p.stdout)
        except Exception:
            cache[cmd] = None
            fail(f"`{cmd}` printed no JSON (exit {p.returncode}): {p.stdout[:300]} {p.stderr[:300]}")
    return cache[cmd]

for lesson in sorted(os.listdir("lessons")):
    toml_path = f"lessons/{lesson}/lesson.toml"
    if not os.path.exists(toml_path):
        continue
    m = tomllib.load(open(toml_path, "rb"))
    readme = open(f"lessons/{lesson}/README.md").read()
    paragraphs = re.split(r"\n\s*\n", readme)
    runs = {s["run"] for s in m.get("steps", []) if "run" in s}
    measured = {(s["measure"]["exercise"], s["measure"]["file"]) for s in m.get("steps", []) if "measure" in s}
    exercises = {e["id"]: e for e in m.get("exercises", [])}
    for fig in m.get("figures", []):
        checked += 1
        text, cmd = fig["text"], fig["command"]
        where = f"{toml_path}: figure '{text}'"
        # The command is one the lesson runs.
        argv = shlex.split(cmd)
        base = " ".join(a for a in argv if a != "--json")
        ok_cmd = base in runs
        if argv[:2] == ["gpulab", "check"] and "--json" in argv:
            ex = argv[2].split("/", 1)
            if "--solution" in argv and len(ex) == 2 and os.path.exists(f"lessons/{ex[0]}/lesson.toml"):
                ok_cmd = True  # a reference solution's check, run in this lesson or an earlier one
            elif ex[0] == lesson and len(ex) == 2 and ex[1] in exercises:
                if "--file" in argv:
                    f = argv[argv.index("--file") + 1]
                    rel = os.path.relpath(f, f"lessons/{lesson}")
                    ok_cmd = (ex[1], rel) in measured
        if not ok_cmd:
            fail(f"{where}: `{cmd}` is not a command the lesson runs (a step's `run`, or `gpulab check` of a file a step measures)")
            continue
        if "--json" not in argv:
            fail(f"{where}: `{cmd}` needs --json")
            continue
        # The README cites it, in a paragraph that says what was run.
        paras = [p for p in paragraphs if text in p]
        if not paras:
            fail(f"{where}: the README does not contain '{text}'")
            continue
        for c in fig.get("context", []):
            if not any(c in p for p in paras):
                fail(f"{where}: no README paragraph citing '{text}' also says '{c}'")
        doc = run(cmd)
        if doc is None:
            continue
        try:
            value = lookup(doc, fig["json"])
        except Exception as e:
            fail(f"{where}: `{cmd}` has no {fig['json']} ({e!r})")
            continue
        if "scale" in fig:
            value = value * fig["scale"]  # e.g. 1000: milliseconds in the JSON, microseconds in the text
        got = fig.get("format", "{}").format(value)
        if got != text:
            fail(f"{where}: the lab prints {got} ({fig['json']} = {value!r} from `{cmd}`), the README says {text}")
print(f"lesson_figures.sh: {checked} figures checked, {fails} failed")
sys.exit(1 if fails or checked == 0 else 0)
PY
