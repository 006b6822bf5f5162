#!/bin/sh
# SPDX-License-Identifier: MIT
# diff_noise.sh: `gcacc diff --threshold` as a CI gate does not fire on
# sampling noise, and does fire on a real change (issue 34).
#
# gameload session (tests/il2cpp/gameload.c: deterministic, one thread,
# a Game.EventRecord leak from record_event) runs 7 times in the default
# profile (sampled, one sample per 512 KiB, each run's samples drawn
# afresh).  Every one of the 21 pairs, compared with --threshold 64k:
#   - exits 0 (before issue 34, 1 on the leak's type in most pairs);
#   - has no type or callsite change marked significant.
# Then a build that doubles the leak (gameload session-b) against the
# session, both sampled at 64 KiB (at 512 KiB the leak's 52 samples give
# its doubling a noise of about 1.2 times the change, so no gate can
# tell it), 3 x 3 pairs each way: every pair exits 1 and marks the
# leak's type significant.
#
# Why this cannot fail by chance: a change is noise when it is at most
# 5 standard errors of the two estimates (cmd_diff.c, rows_noise).  Per
# row, a false alarm has probability at most 2 exp(-25/2) = 7.5e-6
# (Hoeffding, on the split of the samples between the runs), and by the
# normal approximation 5.7e-7; the rows that carry samples here are the
# leak's type and callsite and System.Byte[]'s (6 rows a pair, 21
# pairs): below 1e-3 by the loose bound, 7e-5 by the normal one, and the
# pairs share runs, so fewer are independent.  The doubled leak's change
# is about 12 standard errors at 64 KiB: the chance that it falls below
# 5 is below 1e-11 a pair.
set -u
. "${srcdir:-.}/tests/cli/cli_lib.sh"
LOAD=${GAMELOAD:-./tests/il2cpp/gameload}
need jq
# Address-space randomization off where it can be: with it on, a stale
# word may keep an object alive in one run and not the next (one run in
# seven kept a 208 KiB array in CI), a real difference of exact live
# bytes that the gate rightly reports; the runs must differ by their
# samples only.
if setarch "$(uname -m)" -R true 2> /dev/null; then
  LOAD="setarch $(uname -m) -R $LOAD"
else
  echo "diff_noise.sh: setarch -R fails here: runs keep their random" \
       "address layout (a conservatively kept object can then differ)"
fi

run() {  # run OUT MODE [PROFILE]
  env -u GC_ACC_PROFILE ${3:+GC_ACC_PROFILE=$3} GC_ACC_TYPES=il2cpp \
    GC_ACC_DUMP="$1" $LOAD "$2" > /dev/null ||
    { echo "FAIL: gameload $2 exited $?"; exit 1; }
}

# The runs, two at a time.
i=0
while [ $i -lt 7 ]; do
  run "$tmp/a$i.gz" session &
  [ $((i % 2)) -eq 1 ] && wait
  i=$((i + 1))
done
for i in 0 1 2; do
  run "$tmp/s$i.gz" session sampled=65536 &
  run "$tmp/d$i.gz" session-b sampled=65536 &
  wait
done

# 21 pairs of one program: no alarm.
alarms=0; marked=0; pairs=0
i=0
while [ $i -lt 7 ]; do
  j=$((i + 1))
  while [ $j -lt 7 ]; do
    pairs=$((pairs + 1))
    $GCACC diff --threshold 64k "$tmp/a$i.gz" "$tmp/a$j.gz" > /dev/null \
      2> "$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || { alarms=$((alarms + 1)); echo "pair a$i a$j: exit $rc:"; cat "$tmp/err"; }
    $GCACC diff --json "$tmp/a$i.gz" "$tmp/a$j.gz" > "$tmp/j.json"
    n=$(jq '[(.types + .sites)[] | select(.live_change_significant == 1)]
      | length' "$tmp/j.json")
    [ "${n:-1}" -eq 0 ] || { marked=$((marked + 1)); echo "pair a$i a$j: $n rows significant"; }
    j=$((j + 1))
  done
  i=$((i + 1))
done
check "$pairs pairs of one program: no exit 1 ($alarms did)" test $alarms -eq 0
check "$pairs pairs of one program: no estimate marked significant ($marked were)" \
  test $marked -eq 0
check "the noise is said on stderr" \
  sh -c "$GCACC diff --threshold 64k $tmp/a0.gz $tmp/a1.gz 2>&1 >/dev/null |
    grep -q 'within sampling noise' || \
    $GCACC diff --threshold 64k $tmp/a0.gz $tmp/a2.gz 2>&1 >/dev/null |
    grep -q 'within sampling noise'"

# The doubled leak: an alarm every time, on the leak's type.
missed=0; unmarked=0; pairs=0
for i in 0 1 2; do
  for j in 0 1 2; do
    for dir in ab ba; do
      pairs=$((pairs + 1))
      if [ $dir = ab ]; then x=$tmp/s$i.gz; y=$tmp/d$j.gz
      else x=$tmp/d$j.gz; y=$tmp/s$i.gz; fi
      $GCACC diff --threshold 64k "$x" "$y" > /dev/null 2>&1
      [ $? -eq 1 ] || missed=$((missed + 1))
      sig=$($GCACC diff --json "$x" "$y" | jq -r '[.types[] |
        select(.type == "Game.EventRecord")][0].live_change_significant')
      [ "$sig" = 1 ] || { unmarked=$((unmarked + 1)); echo "pair $x $y: leak not significant"; }
    done
  done
done
check "$pairs pairs with the leak doubled: exit 1 every time ($missed missed)" \
  test $missed -eq 0
check "$pairs pairs with the leak doubled: the leak's type significant ($unmarked not)" \
  test $unmarked -eq 0

# Exact figures gate exactly: --sigma changes nothing for them, and a
# profile-off dump's class rows have no noise.
$GCACC diff --json "$tmp/s0.gz" "$tmp/d0.gz" > "$tmp/j.json"
check "class rows: noise 0" test "$(jq '[.classes[].live_change_noise_bytes]
  | max' "$tmp/j.json")" = 0
check "--sigma 0: every estimate's change counts" test "$($GCACC diff \
  --sigma 0 --json "$tmp/a0.gz" "$tmp/a1.gz" | jq '[(.types + .sites)[]
  | select(.live_change_bytes != 0 and .live_change_significant == 0)]
  | length')" = 0
$GCACC diff --sigma x "$tmp/a0.gz" "$tmp/a1.gz" > /dev/null 2>&1
check "--sigma x exits 2" test $? -eq 2
finish
