#!/usr/bin/env bash
# Builds the simulated runtimes for the host: one librkllmrt.so per ABI, one librknnrt.so, and the
# layout-table programs whose output the binding's layout tests check against. Called by Maven
# (generate-resources) with the module's target directory.
set -euo pipefail
src="$(cd "$(dirname "$0")" && pwd)"
target="${1:?usage: build.sh TARGET_DIR}"
cc="${CC:-$(command -v cc || command -v gcc || true)}"
if [ -z "$cc" ]; then
  echo "build.sh: no C compiler found (install gcc, or set CC)" >&2
  exit 1
fi

arch="$(uname -m)"
out="$target/sim"
resources="$target/classes/io/rkllm/ffm/sim/linux-$arch"
mkdir -p "$out" "$resources"

cflags=(-std=gnu11 -O2 -g -Wall -Wextra -Werror -fPIC)
for abi in 1.2 1.3; do
  minor="${abi#1.}"
  "$cc" "${cflags[@]}" -DRKLLM_ABI_MINOR="$minor" -I"$src" -shared \
    -o "$out/librkllmrt-$abi.so" "$src"/sim/*.c -lpthread -lm
  "$cc" -std=gnu11 -O0 -Wall -Werror -DRKLLM_ABI_MINOR="$minor" -I"$src" \
    -o "$out/layout-table-$abi" "$src/layout_table.c"
  "$out/layout-table-$abi" > "$out/layout-$abi.txt"
  cp "$out/librkllmrt-$abi.so" "$resources/"
done
# The simulated RKNN runtime (librknnrt.so 2.3.x, one ABI) for image encoders: its own sources plus the
# RKLLM simulator's string, JSON, trace, clock and key-file helpers (compiled with that header's ABI macro set,
# which nothing of them depends on).
rknn_sources=("$src"/rknn_sim/*.c "$src"/sim/strbuf.c "$src"/sim/json.c "$src"/sim/tokenizer.c "$src"/sim/trace.c
              "$src"/sim/clock.c "$src"/sim/keyfile.c)
rknn_flags=(-DRKLLM_ABI_MINOR=3 -I"$src" -I"$src/sim")
"$cc" "${cflags[@]}" "${rknn_flags[@]}" -shared -o "$out/librknnrt.so" "${rknn_sources[@]}" -lpthread -lm
"$cc" -std=gnu11 -O0 -Wall -Werror -I"$src" -o "$out/layout-table-rknn" "$src/layout_table_rknn.c"
"$out/layout-table-rknn" > "$out/layout-rknn.txt"
cp "$out/librknnrt.so" "$resources/"
echo "build.sh: simulated runtime built for $arch in $out"

# The boards are aarch64: when a cross compiler is at hand, bundle an aarch64 build too, so that a jar
# (or .deb) built on an x86 machine can run --simulate and `doctor --simulate` on an Orange Pi.
cross="${CROSS_CC_AARCH64:-aarch64-linux-gnu-gcc}"
if [ "$arch" != "aarch64" ] && command -v "$cross" >/dev/null; then
  arm="$target/classes/io/rkllm/ffm/sim/linux-aarch64"
  mkdir -p "$arm"
  for abi in 1.2 1.3; do
    "$cross" "${cflags[@]}" -DRKLLM_ABI_MINOR="${abi#1.}" -I"$src" -shared \
      -o "$arm/librkllmrt-$abi.so" "$src"/sim/*.c -lpthread -lm
  done
  "$cross" "${cflags[@]}" "${rknn_flags[@]}" -shared -o "$arm/librknnrt.so" "${rknn_sources[@]}" -lpthread -lm
  echo "build.sh: simulated runtime also built for aarch64 with $cross"
elif [ "$arch" != "aarch64" ]; then
  echo "build.sh: no $cross: the jar carries the simulated runtime for $arch only"
fi
