#!/usr/bin/env bash
# check_doc_snippets.sh DOC REPO_ROOT — a document's copies of repository files must be the files.
#
# Every line `<!-- file: PATH -->` of DOC (alone on its line) must be followed, on the next line, by a
# fenced code block (three or more backticks, an optional language); the block's content must be
# byte-identical to REPO_ROOT/PATH (a newline after each line, as the file ends with one). On a mismatch
# it prints the doc line and a unified diff (repository file first) and exits 1. A DOC with no marker
# fails too (a check that finds nothing to check passes nothing), as do a marker not followed by a fence,
# an unterminated fence, a misspelt marker (a line starting `<!-- file` that is not the exact form) and
# a PATH that does not exist. Markers inside other fenced blocks are ignored (text quoting the syntax).
# Exit codes: 0 every block matches, 1 a failure above, 2 usage.
set -euo pipefail
if [[ $# -ne 2 ]]; then
  echo "usage: check_doc_snippets.sh DOC REPO_ROOT" >&2
  exit 2
fi
doc=$1 root=$2
fail() { echo "check_doc_snippets: FAIL: $*" >&2; exit 1; }
[[ -f "$doc" ]] || fail "no such document: $doc"
[[ -d "$root" ]] || fail "no such directory: $root"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Pass 1 (awk, bytes as they are): write each marked block to $tmp/<n> and "<doc line>\t<path>\t<file>"
# to $tmp/index. States: 0 text, 1 after a marker, 2 inside a marked block, 3 inside another block.
status=0
LC_ALL=C awk -v out="$tmp" -v doc="$doc" '
  function err(msg) { printf "check_doc_snippets: FAIL: %s:%d: %s\n", doc, NR, msg > "/dev/stderr"; bad = 1 }
  BEGIN { state = 0; n = 0; bad = 0; index_file = out "/index"; printf "" > index_file }
  state == 0 && /^<!-- file: [^ ]+ -->[ \t]*$/ {
    path = $0
    sub(/^<!-- file: /, "", path)
    sub(/ -->[ \t]*$/, "", path)
    marker = NR
    state = 1
    next
  }
  state == 0 && /^<!-- *file/ { err("malformed marker (the form is: <!-- file: PATH -->): " $0); next }
  state == 0 && /^```/ { match($0, /^`+/); fence = substr($0, 1, RLENGTH); state = 3; next }
  state == 3 { if (index($0, fence) == 1 && $0 ~ /^`+[ \t]*$/ && length($0) >= length(fence)) state = 0; next }
  state == 1 {
    if ($0 ~ /^```/) {
      match($0, /^`+/)
      fence = substr($0, 1, RLENGTH)
      n++
      block = out "/" n
      printf "" > block
      printf "%d\t%s\t%s\n", marker, path, block > index_file
      state = 2
    } else {
      err("the marker on line " marker " is not followed by a fenced code block")
      state = 0
    }
    next
  }
  state == 2 {
    # A closing fence: backticks only, at least as many as the opening one.
    if (index($0, fence) == 1 && $0 ~ /^`+[ \t]*$/ && length($0) >= length(fence)) {
      close(block)
      state = 0
    } else {
      print > block
    }
    next
  }
  END {
    if (state == 1) err("the marker on line " marker " is the last line: no fenced code block follows")
    if (state == 2) err("the block of the marker on line " marker " (" path ") is never closed")
    close(index_file)
    exit bad
  }
' "$doc" || status=1

blocks=0 mismatches=0
while IFS=$'\t' read -r line path block; do
  blocks=$((blocks + 1))
  if [[ "$path" == /* || "$path" == *..* ]]; then
    echo "check_doc_snippets: FAIL: $doc:$line: the marker's path must be relative to the repository root: $path" >&2
    status=1
    continue
  fi
  if [[ ! -f "$root/$path" ]]; then
    echo "check_doc_snippets: FAIL: $doc:$line: $path does not exist under $root" >&2
    status=1
    continue
  fi
  if ! cmp -s "$root/$path" "$block"; then
    echo "check_doc_snippets: FAIL: $doc:$line: the block after this line differs from $path" >&2
    diff -u --label "$path (repository)" --label "$doc:$line (document)" "$root/$path" "$block" >&2 || true
    mismatches=$((mismatches + 1))
    status=1
  fi
done <"$tmp/index"

if [[ $blocks -eq 0 ]]; then
  fail "no <!-- file: PATH --> markers in $doc: nothing was checked"
fi
if [[ $mismatches -ne 0 ]]; then
  fail "$doc: $mismatches of $blocks blocks differ from their files (copy each file into its block again)"
fi
if [[ $status -ne 0 ]]; then
  fail "$doc: see the errors above"
fi
echo "check_doc_snippets: OK: $blocks blocks match"
