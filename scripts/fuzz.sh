#!/bin/sh
# Coverage-guided fuzzing of every parser that takes outside text (atheris, libFuzzer).
#
#   scripts/fuzz.sh [minutes per harness, default 5] [harness ...]
#
# Harnesses are fuzz/<name>.py; the mail ones start from the mail corpus of the tests.
# A crash, a failed property or an input slower than 10 s is written to var/fuzz/<name>-*
# and stops that harness (the script goes on with the next and fails at the end).
# Needs the optional extra: .venv/bin/pip install -e '.[fuzz]'
set -u
cd "$(dirname "$0")/.." || exit 2
PY=${PYTHON:-.venv/bin/python}
MINUTES=${1:-5}
[ $# -gt 0 ] && shift
HARNESSES=${*:-"read_mail parse_bounce parse_envelope html_to_text compose_roundtrip verify"}
WORK=${FUZZ_WORK:-var/fuzz}
if ! "$PY" -c "import atheris" 2>/dev/null; then
    echo "atheris is not installed: $PY -m pip install -e '.[fuzz]'" >&2
    exit 2
fi
failed=""
for name in $HARNESSES; do
    corpus="$WORK/$name"
    mkdir -p "$corpus"
    case $name in
        read_mail|parse_bounce) cp -n tests/mail/corpus/*.eml "$corpus"/ 2>/dev/null ;;
        parse_envelope) cp -n docs/*.md "$corpus"/ 2>/dev/null ;;
    esac
    echo "== $name: $MINUTES min"
    "$PY" "fuzz/$name.py" -max_total_time=$((MINUTES * 60)) -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$WORK/$name-" "$corpus" || failed="$failed $name"
done
if [ -n "$failed" ]; then
    echo "failed:$failed (inputs in $WORK)" >&2
    exit 1
fi
echo "no failure"
