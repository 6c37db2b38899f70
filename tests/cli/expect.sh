#!/usr/bin/env bash
# expect.sh CODE REGEX -- COMMAND...: runs COMMAND, and passes when it exits with CODE and its combined
# output matches the extended regular expression REGEX (several, each on some line: separate them with
# ' &&& '). Prints the output on failure.
set -u
want=$1; regex=$2; shift 3
out=$("$@" 2>&1); got=$?
if [[ $got -ne $want ]]; then
  printf 'exit code %s, wanted %s, from: %s\n%s\n' "$got" "$want" "$*" "$out"; exit 1
fi
rest=$regex
while :; do
  one=${rest%% &&& *}
  if ! grep -Eq -- "$one" <<<"$out"; then
    printf 'output does not match /%s/:\n%s\n' "$one" "$out"; exit 1
  fi
  [[ $one == "$rest" ]] && break
  rest=${rest#* &&& }
done
echo "ok: exit $got, output matches /$regex/"
