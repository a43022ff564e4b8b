#!/usr/bin/env bash
# Regenerates one layout table: compiles layout_table.c against the llama.h of the build a layout generation
# describes and writes its output where LayoutTableTest reads it. The header is not part of this repository:
# take include/llama.h (and ggml/include/*.h beside it) from the llama.cpp source of that build, or from
# Debian's libllama-dev / libggml-dev for V0_7_0.
#
#   src/layout/regenerate.sh B4916  /path/to/llama.cpp-b4916/include:/path/to/llama.cpp-b4916/ggml/include
#   src/layout/regenerate.sh V0_5_0 /path/to/llama.cpp-v0.5.0/include:/path/to/llama.cpp-v0.5.0/ggml/include
#   src/layout/regenerate.sh V0_7_0 /usr/include
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
generation="${1:?usage: regenerate.sh GENERATION INCLUDE_DIRS (colon-separated)}"
includes="${2:?usage: regenerate.sh GENERATION INCLUDE_DIRS (colon-separated)}"
flags=()
IFS=: read -ra dirs <<< "$includes"
for dir in "${dirs[@]}"; do flags+=("-I$dir"); done
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"${CC:-cc}" -std=c11 -Wall -Werror -DLAYOUT_"$generation" "${flags[@]}" -o "$out/layout-table" "$here/layout_table.c"
target="$here/../test/resources/io/rkllm/llama/layout-$generation.txt"
"$out/layout-table" > "$target"
echo "wrote $target"
