#!/usr/bin/env bash
# Runs the known faults of the RKLLM runtime (docs/runtime-abi.md, "Known faults") on this board, through
# rkllm-server, and prints what it saw: whether each fault shows with this runtime, this model and this
# kernel, and whether the server's workaround holds. Nothing is changed on the machine; the server runs on a
# free port with the model linked into a temporary directory.
set -uo pipefail

usage() {
    cat <<'USAGE'
Usage: scripts/device-check.sh --model FILE [options]
  --model FILE     a thinking model (Qwen3 converted for this chip), e.g. ~/models/Qwen3-1.7B/qwen3-1.7b.rkllm
  --second FILE    a second model for the memory case: two models that do not fit in memory together
  --crash-test     memory case without the server's check: lets rkllm_init run out of memory (runtime 1.3.0
                   is reported to crash the process then; 1.2.3 returns an error)
  --jar FILE       the server jar (default: the checkout's ./rkllm-server when it is built, else the
                   installed rkllm-server)
  --library FILE   librkllmrt.so to test (default: what the server finds)
  --abi 1.2|1.3    force the runtime's ABI (for a library the server cannot identify)
  --simulate       run against the bundled simulated runtime (--model is then a simulated model file)
  -h, --help       this text
The server command can be replaced with RKLLM_SERVER_CMD (e.g. "java -cp CLASSPATH io.rkllm.server.Main").
USAGE
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
model="" second="" crash="" jar="" library="" abi="" simulate=()
while [ $# -gt 0 ]; do
    case "$1" in
        --model) model=$2; shift ;;
        --second) second=$2; shift ;;
        --crash-test) crash=1 ;;
        --jar) jar=$2; shift ;;
        --library) library=$2; shift ;;
        --abi) abi=$2; shift ;;
        --simulate) simulate=(--simulate) ;;
        -h|--help) usage; exit 0 ;;
        *) echo "unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
[ -n "$model" ] && [ -f "$model" ] || { echo "--model FILE is required (a .rkllm file)" >&2; exit 2; }
command -v python3 >/dev/null || { echo "python3 is needed to read the answers" >&2; exit 2; }
command -v curl >/dev/null || { echo "curl is needed" >&2; exit 2; }

work=$(mktemp -d)
server_pid=""
stop_server() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null
        server_pid=""
    fi
}
trap 'stop_server; rm -rf "$work"' EXIT

# the server: the checkout's launcher (./rkllm-server, which finds a Java 25), the installed one, or a jar run
# through the packaged launcher; the JVM's crash report goes into the work directory
export RKLLM_JAVA_OPTS="${RKLLM_JAVA_OPTS:-} -XX:ErrorFile=$work/hs_err_%p.log"
if [ -n "${RKLLM_SERVER_CMD:-}" ]; then
    read -r -a server_cmd <<<"$RKLLM_SERVER_CMD"
elif [ -n "$jar" ]; then
    [ -f "$jar" ] || { echo "--jar $jar: no such file" >&2; exit 2; }
    launcher=$here/../packaging/bin/rkllm-server
    [ -x "$launcher" ] || launcher=$(command -v rkllm-server) || { echo "no rkllm-server launcher found" >&2; exit 2; }
    export RKLLM_SERVER_JAR=$(cd "$(dirname "$jar")" && pwd)/$(basename "$jar")
    server_cmd=("$launcher")
elif [ -r "$here/../server/target/rkllm-server.jar" ]; then
    server_cmd=("$here/../rkllm-server")
elif command -v rkllm-server >/dev/null; then
    server_cmd=(rkllm-server)
else
    echo "no server found: build it (scripts/build), install it, or give --jar" >&2; exit 2
fi

echo "== board"
echo "machine: $(uname -m), kernel $(uname -r)"
features=$(grep -m1 '^Features' /proc/cpuinfo 2>/dev/null | cut -d: -f2)
echo "cpu features:${features:- (none listed)}"
if grep -qw sve <<<"$features"; then echo "sve: yes"; else echo "sve: no"; fi
npu=$(cat /sys/kernel/debug/rknpu/version 2>/dev/null || echo "unknown (read /sys/kernel/debug/rknpu/version as root)")
echo "npu driver: $npu"
if [ -n "$library" ] && [ -f "$library" ]; then
    command -v git >/dev/null && echo "library blob: $(git hash-object "$library") (docs/runtime-abi.md lists the releases)"
    command -v strings >/dev/null && echo "library version: $(strings "$library" | grep -m1 -E '^1\.[0-9]+\.[0-9]+(b[0-9]+)?$')"
    command -v objdump >/dev/null && echo "library SVE instructions: $(objdump -d "$library" | grep -cE '\bz[0-9]+\.[bhsdq]\b')"
fi

# the model in a family the server has a chat template for (thinking switched by the template), and as an
# unknown family (thinking only through the runtime's enable_thinking flag): one models directory each, since
# the server serves a file once
link() {  # DIR NAME FILE SIDECAR
    mkdir -p "$work/$1/$2"
    ln -s "$(cd "$(dirname "$3")" && pwd)/$(basename "$3")" "$work/$1/$2/$2.rkllm"
    printf '%b' "$4" >"$work/$1/$2/model.yaml"
}
link template qwen3-template "$model" 'family: qwen3\ncapabilities: {thinking: true}\n'
link flag flag-only "$model" 'family: generic\ncapabilities: {thinking: true}\n'
if [ -n "$second" ]; then
    link memory qwen3-template "$model" 'family: qwen3\ncapabilities: {thinking: true}\n'
    link memory second "$second" ''
fi

start_server() {  # NAME MODELS FLAGS...: starts the server on the models of $work/MODELS, waits until it listens
    local name=$1 models=$2; shift 2
    local log="$work/$name.log"
    local options=(serve "${simulate[@]}" --port 0 --models.dir "$work/$models" --models.idle_unload 0 --cache.slots 1 "$@")
    [ -n "$library" ] && options+=(--library "$library")
    [ -n "$abi" ] && options+=(--abi "$abi")
    (cd "$work" && RKLLM_LOG_LEVEL=2 exec "${server_cmd[@]}" "${options[@]}") >"$log" 2>&1 &
    server_pid=$!
    for _ in $(seq 600); do
        port=$(sed -n 's/^listening on .*:\([0-9]*\)$/\1/p' "$log")
        [ -n "$port" ] && return 0
        kill -0 "$server_pid" 2>/dev/null || { echo "the server did not start (exit $(wait "$server_pid"; echo $?)):"; tail -5 "$log"; server_pid=""; return 1; }
        sleep 0.1
    done
    echo "the server did not start within 60 s"; return 1
}

ask() {  # MODEL MAX_TOKENS MESSAGES_JSON: prints one line; sets finish, content, reasoning, tokens
    local body="{\"model\":\"$1\",\"max_tokens\":$2,\"messages\":$3}"
    rm -f "$work/answer.json" "$work/headers"
    status=$(curl -s -o "$work/answer.json" -D "$work/headers" -w '%{http_code}' -H 'Content-Type: application/json' \
        --max-time 900 -d "$body" "http://127.0.0.1:$port/v1/chat/completions") || status=000
    read -r finish content reasoning tokens < <(python3 - "$work/answer.json" <<'PY'
import json, sys
try:
    b = json.load(open(sys.argv[1]))
    c = b["choices"][0]
    m = c["message"]
    print(c["finish_reason"], len(m.get("content") or ""), len(m.get("reasoning_content") or ""), b["usage"]["completion_tokens"])
except Exception:
    print("error 0 0 0")
PY
)
    local incomplete
    incomplete=$(grep -i '^x-rkllm-incomplete:' "$work/headers" 2>/dev/null | cut -d: -f2- | tr -d '\r')
    echo "  HTTP $status, finish_reason $finish, content $content chars, reasoning $reasoning chars, $tokens tokens${incomplete:+, X-RKLLM-Incomplete:$incomplete}"
    if [ "$status" != 200 ] && [ -f "$work/answer.json" ]; then echo "  error: $(head -c 400 "$work/answer.json")"; fi
}

verdicts=()
verdict() { verdicts+=("$1: $2"); echo "  -> $2"; }
why='[{"role":"user","content":"Why is the sky blue? Answer in two sentences."}]'
hello='[{"role":"user","content":"/no_think Say hello in one short sentence."}]'

forced=(--runtime.thinking_flag always --runtime.eos_guard off)
echo "== think_finish: thinking through enable_thinking, no chat template set (runtime.thinking_flag always)"
if start_server flag flag "${forced[@]}"; then
    ask flag-only 1024 "$why"
    if [ "$reasoning" -gt 0 ] && [ "$content" -eq 0 ] && [ "$tokens" -lt 1024 ]; then
        verdict "think_finish without a template" "SEEN (reasoning, then nothing)"
    else verdict "think_finish without a template" "not seen"; fi
    stop_server
fi
echo "== think_finish after rkllm_set_chat_template, and no_eos (thinking_flag always, eos_guard off)"
if start_server forced template "${forced[@]}"; then
    ask qwen3-template 1024 "$why"
    if [ "$reasoning" -gt 0 ] && [ "$content" -eq 0 ] && [ "$tokens" -lt 1024 ]; then
        verdict "think_finish with a template" "SEEN (the flag still acts after a template)"
    else verdict "think_finish with a template" "not seen"; fi
    echo "a short answer without thinking, 200 tokens allowed:"
    ask qwen3-template 200 "$hello"
    if [ "$finish" = length ] && [ "$tokens" -ge 200 ]; then
        verdict "no_eos" "SEEN (ran to the token limit)"
    else verdict "no_eos" "not seen"; fi
    grep -h 'EOS token' "$work/forced.log" | sed 's/^/  runtime log: /' | head -3
    stop_server
fi

echo "== the server's defaults (thinking switched by the template, eos_guard auto)"
if start_server defaults template; then
    ask qwen3-template 1024 "$why"
    if [ "$content" -gt 0 ]; then verdict "default thinking answer" "whole"; else verdict "default thinking answer" "BROKEN"; fi
    ask qwen3-template 200 "$hello"
    if [ "$finish" = stop ]; then verdict "default short answer" "ended (finish_reason stop)"
    else verdict "default short answer" "finish_reason $finish"; fi
    grep -h 'did not recognise the model.s EOS\|EOS may never fire\|answer ended after its reasoning' "$work/defaults.log" \
        | sed 's/^/  server log: /' | head -3
    stop_server
fi

if [ -n "$second" ]; then
    if [ -n "$crash" ]; then
        echo "== memory: two models loaded at once, no memory check (models.memory_check off)"
        flags=(--models.memory_check off --models.max_loaded 2)
    else
        echo "== memory: two models, the server's memory check (models.memory_check on)"
        flags=(--models.memory_check on --models.max_loaded 2)
    fi
    if start_server memory memory "${flags[@]}"; then
        ask qwen3-template 16 "$hello"
        ask second 16 "$hello"
        if [ "$status" = 000 ]; then
            # the connection went down with no answer: a dying JVM still writes its crash report, give it time
            for _ in $(seq 1 300); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.1; done
        fi
        if ! kill -0 "$server_pid" 2>/dev/null; then
            wait "$server_pid"; code=$?; server_pid=""
            signal=$(grep -ho 'SIG[A-Z]*' "$work"/hs_err*.log "$work/memory.log" 2>/dev/null | head -1)
            grep -h 'rkllm\|RKNN\|SIG' "$work/memory.log" | tail -4 | sed 's/^/  server log: /'
            verdict "init beyond memory" "SEEN: the server process died (exit $code${signal:+, $signal})"
        elif [ "$status" = 503 ]; then verdict "init beyond memory" "refused with 503, the server lives"
        else verdict "init beyond memory" "loaded (HTTP $status): the two fit, or one was unloaded first"; fi
        stop_server
    fi
fi

if grep -qs '^# *SIGILL' "$work"/hs_err*.log; then verdicts+=("illegal instruction: SEEN (SIGILL, rknn-llm#518)"); fi
echo "== summary ($(basename "$model"))"
printf '  %s\n' "${verdicts[@]}"
