#!/bin/sh
# SPDX-License-Identifier: MIT
# trace_events.sh: `gcacc export --chrome-trace` against the Trace Event
# Format's documented fields (the JSON Object Format that Perfetto and
# chrome://tracing load), event by event, with jq:
#   - the file is an object with a "traceEvents" array, and its
#     "displayTimeUnit", when present, is "ms" or "ns";
#   - every event has a string "name", a documented one-letter "ph", and
#     integer "pid" and "tid"; "args", when present, is an object;
#   - every event but metadata ("M") has a numeric "ts" (microseconds);
#     complete events ("X") a numeric "dur" >= 0; counter events ("C")
#     args whose every value is a number (one series each); instant
#     events ("i"/"I") a scope "s", when present, of "g", "p" or "t";
#     metadata events one of the documented names, args.name a string
#     for process_name and thread_name;
#   - complete events on one thread nest (none ends inside another that
#     began before it and ends later), which viewers require;
#   - the values are the dump's: one counter per collection, a mark event
#     per collection at t_start_ns / 1000 lasting mark_ns / 1000, an
#     instant per heap growth.
set -u
. "${srcdir:-.}/tests/cli/workload_lib.sh"

make_dump leak
d=$tmp/leak.gz
run "$GCACC" export --chrome-trace "$d"
check_eq "trace: exit" "$rc" 0
cp "$tmp/out" "$tmp/t.json"
check_eq "trace: a JSON object with a traceEvents array" \
  "$(jq -r '(type == "object") and (.traceEvents | type == "array")' \
     "$tmp/t.json")" true
check_eq "trace: displayTimeUnit ms or ns" \
  "$(jq -r 'if has("displayTimeUnit") then .displayTimeUnit == "ms"
            or .displayTimeUnit == "ns" else true end' "$tmp/t.json")" true

# Every event against the fields its phase documents: the offending
# events, one line each, or nothing.
bad=$(jq -c '.traceEvents[] | . as $e
  | [ (if (.name | type) != "string" then "name" else empty end),
      (if ((.ph | type) != "string") or ((.ph | length) != 1)
          or ("BEXiICbnestfPONDMVvRc" | contains($e.ph) | not)
       then "ph" else empty end),
      (if (.pid | type) != "number" or (.pid | floor) != .pid
       then "pid" else empty end),
      (if (.tid | type) != "number" or (.tid | floor) != .tid
       then "tid" else empty end),
      (if has("args") and (.args | type) != "object" then "args"
       else empty end),
      (if .ph != "M" and ((.ts | type) != "number" or .ts < 0)
       then "ts" else empty end),
      (if .ph == "X" and ((.dur | type) != "number" or .dur < 0)
       then "dur" else empty end),
      (if .ph == "C" and ((.args | type) != "object"
          or ([.args[] | type] | all(. == "number")) | not)
       then "counter args" else empty end),
      (if (.ph == "i" or .ph == "I") and has("s")
          and (["g", "p", "t"] | index($e.s)) == null
       then "scope" else empty end),
      (if .ph == "M" and (["process_name", "process_labels",
          "process_sort_index", "thread_name", "thread_sort_index"]
          | index($e.name)) == null then "metadata name" else empty end),
      (if .ph == "M" and (.name == "process_name"
          or .name == "thread_name") and (.args.name | type) != "string"
       then "metadata args.name" else empty end) ]
  | select(length > 0) | {bad: ., event: $e}' "$tmp/t.json" | head -5)
check_eq "trace: every event has its phase's documented fields" "$bad" ""
check_range "trace: events" "$(jq '.traceEvents | length' "$tmp/t.json")" \
  10 10000000
check_eq "trace: process and thread named" \
  "$(jq -c '[.traceEvents[] | select(.ph == "M") | .name] | sort' \
     "$tmp/t.json")" '["process_name","thread_name"]'

# Complete events nest per thread: sorted by start (longer first), each
# begins after the enclosing ones it is not inside of ended.
overlap=$(jq -r '[.traceEvents[] | select(.ph == "X")]
  | group_by([.pid, .tid])[] | sort_by(.ts, -.dur)
  | reduce .[] as $e ({open: [], bad: []};
      .open |= map(select(.ts + .dur > $e.ts))
      | if (.open | length) > 0 and (.open[-1] | .ts + .dur) < ($e.ts + $e.dur)
        then .bad += [$e.name + "@" + ($e.ts | tostring)] else . end
      | .open += [$e])
  | .bad[]' "$tmp/t.json" | head -3)
check_eq "trace: complete events nest" "$overlap" ""

# The dump's own values.
zcat "$d" >"$tmp/leak.jsonl"
ncoll=$(grep -c '"record":"collection"' "$tmp/leak.jsonl")
check_eq "trace: a counter per collection" \
  "$(jq '[.traceEvents[] | select(.ph == "C")] | length' "$tmp/t.json")" \
  "$ncoll"
check_eq "trace: an instant per heap growth" \
  "$(jq '[.traceEvents[] | select(.ph == "i")] | length' "$tmp/t.json")" \
  "$(jq -n '[inputs | .grows // [] | length] | add' "$tmp/leak.jsonl")"
# ts and dur in microseconds: the mark event of each collection against
# t_start_ns and mark_ns (to the nanosecond the float keeps).
jq -n -r '[inputs | select(.record == "collection")][]
          | "\(.gc_no) \(.t_start_ns) \(.mark_ns)"' "$tmp/leak.jsonl" \
  >"$tmp/want"
jq -r '.traceEvents[] | select(.ph == "X" and .name == "mark")
       | "\(.args.gc_no) \(.ts) \(.dur)"' "$tmp/t.json" >"$tmp/got"
check_eq "trace: mark events, one per collection" \
  "$(wc -l <"$tmp/got" | tr -d ' ')" "$ncoll"
bad=$(awk 'NR == FNR { t[$1] = $2; m[$1] = $3; next }
           { dt = $2 * 1000 - t[$1]; dd = $3 * 1000 - m[$1]
             if (!($1 in t) || dt > 2 || dt < -2 || dd > 2 || dd < -2)
               print }' "$tmp/want" "$tmp/got" | head -3)
check_eq "trace: mark ts and dur are the dump's, in microseconds" "$bad" ""
finish
