#!/usr/bin/env bash
# Builds the simulated runtimes (RKLLM, both ABIs; RKNN), compiles sim_smoke.c against each
# librkllmrt-1.x.so and rknn_smoke.c against librknnrt.so and runs them: once normally (timed checks
# included), then checks the traces and the log lines, then once under valgrind with a time scale of 0
# (leaks, invalid accesses), and finally the aarch64 builds under qemu-aarch64 when the cross compiler
# and qemu-user are installed.
#
#   run.sh [TARGET_DIR]        default: the module's target/ directory
#   SIM_SMOKE_VALGRIND=0 run.sh    skips the valgrind pass
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
module="$(cd "$here/../../.." && pwd)"
target="${1:-$module/target}"
cc="${CC:-$(command -v cc || command -v gcc)}"

bash "$module/src/main/c/build.sh" "$target"
out="$target/sim"
status=0
for abi in 1.2 1.3; do
  minor="${abi#1.}"
  version=$([ "$abi" = 1.2 ] && echo 1.2.3 || echo 1.3.0)
  exe="$out/sim_smoke-$abi"
  "$cc" -std=gnu11 -O1 -g -Wall -Wextra -Werror -DRKLLM_ABI_MINOR="$minor" -I"$module/src/main/c" \
    -o "$exe" "$here/sim_smoke.c" -L"$out" -l:"librkllmrt-$abi.so" -Wl,-rpath,"$out" -lpthread

  # exported symbols: exactly the rkllm_* API
  exported="$(nm -D --defined-only "$out/librkllmrt-$abi.so" | awk '{print $3}' | sort | tr '\n' ' ')"
  expected="rkllm_abort rkllm_clear_kv_cache rkllm_createDefaultParam rkllm_destroy rkllm_get_kv_cache_size rkllm_init rkllm_is_running rkllm_load_lora rkllm_load_prompt_cache rkllm_release_prompt_cache rkllm_run rkllm_run_async rkllm_set_chat_template rkllm_set_cross_attn_params rkllm_set_function_tools "
  if [ "$exported" != "$expected" ]; then
    echo "FAIL [$abi] exported symbols: $exported" >&2
    status=1
  fi

  work="$(mktemp -d)"
  echo "== sim_smoke $abi (work dir $work)"
  if ! "$exe" "$work" > "$work/stdout.txt" 2> "$work/stderr.txt"; then
    status=1
    grep FAIL "$work/stderr.txt" >&2 || tail -20 "$work/stderr.txt" >&2
  fi
  tail -1 "$work/stdout.txt"
  grep -q "^I rkllm: rkllm-runtime version: $version, rknpu driver version: 0.9.8, platform: RK3588\$" "$work/stdout.txt" \
    || { echo "FAIL [$abi] no runtime version line on stdout" >&2; status=1; }
  grep -q "^I rkllm: rkllm-toolkit version: $version, max_context_limit: 4096, npu_core_num: 3, target_platform: RK3588, model_dtype: W8A8\$" "$work/stdout.txt" \
    || { echo "FAIL [$abi] no toolkit line on stdout" >&2; status=1; }
  grep -q "^E rkllm: max_context\[8192\] must be less than the model's max_context_limit\[4096\]\$" "$work/stderr.txt" \
    || { echo "FAIL [$abi] no max_context error line on stderr" >&2; status=1; }
  grep -q "^error: prompt gather than max context (prompt: 50 tokens, max context: 40)\$" "$work/stderr.txt" \
    || { echo "FAIL [$abi] no 'prompt gather than max context' line on stderr" >&2; status=1; }
  # an init beyond the NPU memory budget: the RKNN layer's line, then 1.2's reason or 1.3's last words
  grep -q "^E RKNN: \[[0-9:.]*\] failed to malloc npu memory, size: 2097152000, flags: 0x2\$" "$work/stderr.txt" \
    || { echo "FAIL [$abi] no 'failed to malloc npu memory' line on stderr" >&2; status=1; }
  oom_line="^E rkllm: rkllm_init failed: not enough NPU memory: the model needs 2000 MB, 1 model(s) hold 2000 of 3000 MB"
  [ "$abi" = 1.3 ] && oom_line="^E rkllm: rkllm_init failed\$"
  grep -q "$oom_line" "$work/stderr.txt" || { echo "FAIL [$abi] no '$oom_line' line on stderr" >&2; status=1; }

  python3 - "$work/trace.jsonl" "$abi" <<'PY' || status=1
import json, sys
path, abi = sys.argv[1], sys.argv[2]
required = {
    "init": ["abi", "model_path", "max_context_len", "max_new_tokens", "top_k", "top_p", "temperature",
             "repeat_penalty", "frequency_penalty", "presence_penalty", "mirostat", "n_keep",
             "skip_special_token", "n_batch", "base_domain_id", "enabled_cpus_num", "enabled_cpus_mask",
             "embed_flash", "result"],
    "run": ["role", "enable_thinking", "input_type", "prompt", "keep_history", "mode", "sampling",
            "max_new_tokens", "lora", "prompt_cache", "cache_before", "prefill_tokens", "prefilled_text",
            "generate_tokens", "cache_after", "result", "output"],
    "clear_kv_cache": ["keep_system_prompt", "cache_after"],
    "set_chat_template": ["system_prompt", "prompt_prefix", "prompt_postfix"],
    "set_function_tools": ["system_prompt", "tools", "tool_response_str"],
    "load_prompt_cache": ["path"],
    "release_prompt_cache": [],
    "load_lora": ["path", "name", "scale"],
    "abort": ["active"],
    "get_kv_cache_size": [],
    "destroy": [],
}
bad = 0
calls = {}
with open(path, encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
        obj = json.loads(line)
        call = obj["call"]
        calls[call] = calls.get(call, 0) + 1
        for key in required.get(call, []):
            if key not in obj:
                print(f"FAIL [{abi}] trace line {n}: {call} without {key}", file=sys.stderr)
                bad += 1
        if call == "init" and obj["abi"] != abi:
            print(f"FAIL [{abi}] trace line {n}: abi {obj['abi']}", file=sys.stderr)
            bad += 1
        if call == "run":
            if (abi == "1.2" and (obj["max_new_tokens"] is not None or obj["sampling"] is not None)) or \
               (abi == "1.3" and not isinstance(obj["max_new_tokens"], int)):
                print(f"FAIL [{abi}] trace line {n}: max_new_tokens/sampling for this ABI", file=sys.stderr)
                bad += 1
            if obj["result"] not in ("finish", "abort", "error", "pause"):
                bad += 1
for call in required:
    if call not in calls:
        print(f"FAIL [{abi}] trace has no {call} line", file=sys.stderr)
        bad += 1
print(f"trace [{abi}]: {sum(calls.values())} lines, all valid JSON; calls: {dict(sorted(calls.items()))}")
sys.exit(1 if bad else 0)
PY

  if [ "${SIM_SMOKE_VALGRIND:-1}" != 0 ] && command -v valgrind > /dev/null; then
    vwork="$(mktemp -d)"
    echo "== sim_smoke $abi under valgrind (RKLLM_SIM_TIME_SCALE=0)"
    if ! RKLLM_SIM_TIME_SCALE=0 valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
        --errors-for-leak-kinds=definite,indirect,possible "$exe" "$vwork" > "$vwork/stdout.txt" 2> "$vwork/stderr.txt"; then
      status=1
      grep -v '^[EW] rkllm\|^error: prompt' "$vwork/stderr.txt" | head -60 >&2
    fi
    tail -1 "$vwork/stdout.txt"
    rm -rf "$vwork"
  fi
  [ "$status" = 0 ] && rm -rf "$work"
done
# The simulated RKNN runtime (librknnrt.so, image encoders): symbols, the smoke test, its trace, valgrind.
rknn_exe="$out/rknn_smoke"
"$cc" -std=gnu11 -O1 -g -Wall -Wextra -Werror -I"$module/src/main/c" -o "$rknn_exe" "$here/rknn_smoke.c" \
  -L"$out" -l:librknnrt.so -Wl,-rpath,"$out" -lpthread
exported="$(nm -D --defined-only "$out/librknnrt.so" | awk '{print $3}' | sort | tr '\n' ' ')"
expected="rknn_destroy rknn_init rknn_inputs_set rknn_outputs_get rknn_outputs_release rknn_query rknn_run rknn_set_core_mask "
if [ "$exported" != "$expected" ]; then
  echo "FAIL [rknn] exported symbols: $exported" >&2
  status=1
fi
work="$(mktemp -d)"
echo "== rknn_smoke (work dir $work)"
if ! "$rknn_exe" "$work" > "$work/stdout.txt" 2> "$work/stderr.txt"; then
  status=1
  grep FAIL "$work/stderr.txt" >&2 || tail -20 "$work/stderr.txt" >&2
fi
tail -1 "$work/stdout.txt"
grep -q "^I RKNN: \[[0-9:.]*\] RKNN Runtime Information, librknnrt version: 2.3.2 (429f97ae6b@2025-04-09T09:09:27)\$" "$work/stderr.txt" \
  || { echo "FAIL [rknn] no runtime version line on stderr" >&2; status=1; }
python3 - "$work/rknn-trace.jsonl" <<'PY' || status=1
import json, sys
required = {
    "init": ["model_path", "rc"],
    "query": ["cmd", "rc"],
    "set_core_mask": ["core_mask", "cores", "rc"],
    "inputs_set": ["n_inputs", "rc"],
    "run": ["run", "rc", "cores", "run_ms"],
    "outputs_get": ["n_outputs", "allocated", "live_outputs", "rc"],
    "outputs_release": ["n_outputs", "freed", "live_outputs"],
    "destroy": ["live_outputs"],
}
bad = 0
calls = {}
with open(sys.argv[1], encoding="utf-8") as f:
    for n, line in enumerate(f, 1):
        obj = json.loads(line)
        call = obj["call"]
        calls[call] = calls.get(call, 0) + 1
        for key in required.get(call, []):
            if key not in obj:
                print(f"FAIL [rknn] trace line {n}: {call} without {key}", file=sys.stderr)
                bad += 1
        if call == "run" and obj["rc"] == 0 and (len(obj["embedding_digest"]) != 16 or not obj["output_digests"]):
            print(f"FAIL [rknn] trace line {n}: run without digests", file=sys.stderr)
            bad += 1
        if call == "destroy" and obj["live_outputs"] != 0:
            print(f"FAIL [rknn] trace line {n}: destroyed with outputs not released", file=sys.stderr)
            bad += 1
for call in required:
    if call not in calls:
        print(f"FAIL [rknn] trace has no {call} line", file=sys.stderr)
        bad += 1
print(f"trace [rknn]: {sum(calls.values())} lines, all valid JSON; calls: {dict(sorted(calls.items()))}")
sys.exit(1 if bad else 0)
PY
if [ "${SIM_SMOKE_VALGRIND:-1}" != 0 ] && command -v valgrind > /dev/null; then
  vwork="$(mktemp -d)"
  echo "== rknn_smoke under valgrind (RKNN_SIM_TIME_SCALE=0)"
  if ! RKNN_SIM_TIME_SCALE=0 valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect,possible \
      --errors-for-leak-kinds=definite,indirect,possible "$rknn_exe" "$vwork" > "$vwork/stdout.txt" 2> "$vwork/stderr.txt"; then
    status=1
    grep -v '^[EWI] RKNN' "$vwork/stderr.txt" | head -60 >&2
  fi
  tail -1 "$vwork/stdout.txt"
  rm -rf "$vwork"
fi
[ "$status" = 0 ] && rm -rf "$work"

# The aarch64 build the jar carries for the boards (build.sh makes it when a cross compiler is present):
# the same smoke test, cross-compiled, on an emulated arm64 CPU when qemu-user is installed.
arm="$target/classes/io/rkllm/ffm/sim/linux-aarch64"
cross="${CROSS_CC_AARCH64:-aarch64-linux-gnu-gcc}"
if [ -f "$arm/librkllmrt-1.3.so" ] && command -v "$cross" > /dev/null && command -v qemu-aarch64 > /dev/null; then
  sysroot="${QEMU_LD_PREFIX:-/usr/aarch64-linux-gnu}"
  for abi in 1.2 1.3; do
    exe="$out/sim_smoke-$abi-aarch64"
    "$cross" -std=gnu11 -O1 -g -Wall -Wextra -Werror -DRKLLM_ABI_MINOR="${abi#1.}" -I"$module/src/main/c" \
      -o "$exe" "$here/sim_smoke.c" -L"$arm" -l:"librkllmrt-$abi.so" -Wl,-rpath,"$arm" -lpthread
    work="$(mktemp -d)"
    echo "== sim_smoke $abi on aarch64 (qemu-aarch64, work dir $work)"
    if ! qemu-aarch64 -L "$sysroot" "$exe" "$work" > "$work/stdout.txt" 2> "$work/stderr.txt"; then
      status=1
      grep FAIL "$work/stderr.txt" >&2 || tail -20 "$work/stderr.txt" >&2
    fi
    tail -1 "$work/stdout.txt"
    [ "$status" = 0 ] && rm -rf "$work"
  done
  exe="$out/rknn_smoke-aarch64"
  "$cross" -std=gnu11 -O1 -g -Wall -Wextra -Werror -I"$module/src/main/c" -o "$exe" "$here/rknn_smoke.c" \
    -L"$arm" -l:librknnrt.so -Wl,-rpath,"$arm" -lpthread
  work="$(mktemp -d)"
  echo "== rknn_smoke on aarch64 (qemu-aarch64, work dir $work)"
  if ! qemu-aarch64 -L "$sysroot" "$exe" "$work" > "$work/stdout.txt" 2> "$work/stderr.txt"; then
    status=1
    grep FAIL "$work/stderr.txt" >&2 || tail -20 "$work/stderr.txt" >&2
  fi
  tail -1 "$work/stdout.txt"
  [ "$status" = 0 ] && rm -rf "$work"
else
  echo "== no aarch64 pass (needs the aarch64 build, $cross and qemu-aarch64 from qemu-user)"
fi
if [ "$status" = 0 ]; then echo "run.sh: all sim smoke checks passed"; else echo "run.sh: FAILURES" >&2; fi
exit "$status"
