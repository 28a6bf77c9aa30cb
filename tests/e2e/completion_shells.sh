#!/usr/bin/env bash
# The completion scripts in real shells. bash: bash-completion's own loader finds
# packaging/completions/gpuctl.bash by command name in an XDG data dir (as it finds the
# packaged /usr/share/bash-completion/completions/gpuctl), then the loaded function completes.
# zsh: an interactive zsh on a pseudo-terminal (zsh/zpty) runs compinit with _gpuctl on its
# fpath, and a TAB typed into its line editor completes; a compadd wrapper records the matches
# zsh kept for the word. Local only; about 5 s. Exit 77 without zsh or bash-completion.
set -euo pipefail
: "${GPUCTL:?GPUCTL must point at the gpuctl binary}" "${GPUCTL_SOURCE_DIR:?}"
loader=/usr/share/bash-completion/bash_completion
[ -r "$loader" ] || { echo "SKIP: bash-completion is not installed (scripts/install-deps installs it)"; exit 77; }
command -v zsh >/dev/null || { echo "SKIP: zsh is not installed (scripts/install-deps installs it)"; exit 77; }
work=$(mktemp -d /var/tmp/gpuctl-completion.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# gpuctl on PATH under its own name: the scripts run "gpuctl ... --help" to learn its words.
mkdir -p "$work/bin" "$work/share/bash-completion/completions" "$work/zfunc"
ln -s "$GPUCTL" "$work/bin/gpuctl"
cp "$GPUCTL_SOURCE_DIR/packaging/completions/gpuctl.bash" "$work/share/bash-completion/completions/gpuctl"
cp "$GPUCTL_SOURCE_DIR/packaging/completions/_gpuctl" "$work/zfunc/_gpuctl"

# --- bash with bash-completion -------------------------------------------------------------
PATH="$work/bin:$PATH" XDG_DATA_DIRS="$work/share" BASH_COMPLETION_USER_DIR="$work/none" \
  bash --norc --noprofile -c '
  source "$1"
  complete -p gpuctl >/dev/null 2>&1 && { echo "gpuctl completion bound before bash-completion loaded it"; exit 1; }
  # What bash does on the first TAB after an unknown command: the default (-D) completion.
  _completion_loader gpuctl || true
  complete -p gpuctl | grep -q -- "-F _gpuctl" || { echo "the loader did not bind _gpuctl: $(complete -p gpuctl 2>&1)"; exit 1; }
  complete_line() {  # complete_line LINE: the candidates for the last word of LINE
    COMP_LINE=$1; COMP_POINT=${#COMP_LINE}
    read -ra COMP_WORDS <<<"$COMP_LINE"
    [[ $COMP_LINE == *" " ]] && COMP_WORDS+=("")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
    _gpuctl gpuctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "
  }
  expect() { local got; got=$(complete_line "$1"); [[ "$got" == "$2" ]] || { echo "bash: \"$1\" gave \"$got\", expected \"$2\""; exit 1; }; }
  expect "gpuctl ver"               "verify version "
  expect "gpuctl rep"               "replace-gpu report "
  expect "gpuctl --color a"         "always auto "
  expect "gpuctl hostkeys "         "accept scan "
  expect "gpuctl report last --j"   "--json --junit "
  expect "gpuctl verify --h"        "--help --html "
' _ "$loader" >"$work/bash.txt" 2>&1 || fail "$(cat "$work/bash.txt")"

# --- zsh: compinit and the line editor ------------------------------------------------------
mkdir -p "$work/zdot"
cat >"$work/zdot/.zshrc" <<'ZSH'
PS1='READY> '
fpath=("$GPUCTL_T_ZFUNC" $fpath)
path=("$GPUCTL_T_BIN" $path)
autoload -Uz compinit && compinit -u -D
zstyle ':completion:*' list-prompt ''
LISTMAX=1000
# Records the matches each compadd keeps (after zsh filtered them by the word typed so far).
compadd() {
  local -a kept
  builtin compadd -O kept "$@"
  (( ${#kept} )) && print -rl -- $kept >>"$GPUCTL_T_OUT"
  builtin compadd "$@"
}
ZSH
cat >"$work/drive.zsh" <<'ZSH'
# Types each line of cases with a TAB into an interactive zsh and prints what was completed.
zmodload zsh/zpty
zpty shell "ZDOTDIR=$GPUCTL_T_ZDOT zsh -d -i"
zpty -r shell line '*READY> ' || { print "zsh never showed its prompt"; exit 1 }
for typed in "$@"; do
  : >"$GPUCTL_T_OUT"
  zpty -w -n shell "$typed"$'\t'
  for i in {1..100}; do [[ -s $GPUCTL_T_OUT ]] && break; sleep 0.05; done
  sleep 0.2   # all compadd calls of this TAB
  print -r -- "$typed => ${(j: :)${(uof)"$(<$GPUCTL_T_OUT)"}}"
  zpty -w -n shell $'\C-u'   # clear the line for the next case
  zpty -r -t shell line 2>/dev/null; while zpty -r -t shell line 2>/dev/null; do :; done
done
zpty -w shell 'exit'
zpty -d shell
ZSH
GPUCTL_T_ZDOT="$work/zdot" GPUCTL_T_ZFUNC="$work/zfunc" GPUCTL_T_BIN="$work/bin" GPUCTL_T_OUT="$work/zsh-matches" \
  timeout 60 zsh -f "$work/drive.zsh" "gpuctl ver" "gpuctl rep" "gpuctl --color a" "gpuctl hostkeys " \
  "gpuctl report last --j" "gpuctl verify --h" >"$work/zsh.txt" 2>&1 || fail "zsh: $(cat "$work/zsh.txt")"
expected='gpuctl ver => verify version
gpuctl rep => replace-gpu report
gpuctl --color a => always auto
gpuctl hostkeys  => accept scan
gpuctl report last --j => --json --junit
gpuctl verify --h => --help --html'
[ "$(cat "$work/zsh.txt")" = "$expected" ] || fail "zsh completions:
$(cat "$work/zsh.txt")
expected:
$expected"
echo "PASS: bash (bash-completion) and zsh (compinit, line editor) complete gpuctl"
