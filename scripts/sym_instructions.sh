#!/usr/bin/env bash
# Instructions per `verify` call, counted by callgrind: repeatable whatever else the
# machine is doing (wall-clock times on a shared 2-core machine move by ±30%).
# Each case runs 200 and 400 calls; the difference / 200 leaves out start-up.
#
#   scripts/sym_instructions.sh                  # the default cases
#   scripts/sym_instructions.sh 'w/w|1' 'x^2|x x'
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
command -v valgrind >/dev/null || { echo "needs valgrind (apt install valgrind)" >&2; exit 2; }
cargo build -q --release -p attest-sym --example loop_verify
bin="${CARGO_TARGET_DIR:-target}/release/examples/loop_verify"
cases=("$@")
if [ ${#cases[@]} -eq 0 ]; then
  cases=('w/w|1' '1/(1/x)|x' '0.1 + 0.2|0.3' 'sqrt(x) sqrt(x)|x' '\ln(\exp(y))|y' '\sqrt{r^2}|\|r\|'
         'abs(k)^2|k^2' '\sqrt{8}|2\sqrt{2}' 'x + 10^-15|x' '(a+b)^2|a^2+2ab+b^2')
fi
count() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$1" "$2" "$3" 2>&1 | awk '/Collected/ {print $4}'; }
printf '%-28s %s\n' "claim (lhs|rhs)" "instructions per call"
for c in "${cases[@]}"; do
  l="${c%%|*}"; r="${c#*|}"
  a=$(count "$l" "$r" 200); b=$(count "$l" "$r" 400)
  printf '%-28s %d\n' "$c" $(( (b - a) / 200 ))
done
