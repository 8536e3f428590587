#!/usr/bin/env bash
# The README's complete example is the consumer project's test file, byte
# for byte: the ```cpp block after the line "<!-- tools/consumer/my_lock_test.cc -->".
# Usage: readme_example_test.sh README.md tools/consumer/my_lock_test.cc
set -euo pipefail
readme=$1 file=$2
block=$(awk '/^<!-- tools\/consumer\/my_lock_test.cc -->$/ { found = 1; next }
             found && !inside && /^```cpp$/ { inside = 1; next }
             inside && /^```$/ { exit }
             inside { print }' "$readme")
if [[ -z $block ]]; then
  echo "no example block after <!-- tools/consumer/my_lock_test.cc --> in $readme" >&2
  exit 1
fi
diff -u <(printf '%s\n' "$block") "$file"
