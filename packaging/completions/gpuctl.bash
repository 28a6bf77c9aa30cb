# bash completion for gpuctl.
# Subcommands and options are read from gpuctl's own --help at completion time, so this file
# never falls behind the binary; values of the options that take a fixed set are listed here.

_gpuctl_help_words() {  # _gpuctl_help_words SECTION ARGS...: first words of a --help section
  local section=$1
  shift
  "${COMP_WORDS[0]}" "$@" --help 2>/dev/null | awk -v want="$section" '
    /^[A-Za-z][A-Za-z ]*:$/ { in_section = ($0 == want ":"); next }
    in_section && /^  [^ ]/ { print $1 }'
}

_gpuctl_options() {  # _gpuctl_options ARGS...: every -x/--long option of that help
  "${COMP_WORDS[0]}" "$@" --help 2>/dev/null | grep -oE '(^|[ ,])--?[A-Za-z][-A-Za-z]*' | tr -d ' ,' | sort -u
}

_gpuctl() {
  local cur prev i word
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  COMPREPLY=()

  # The subcommand path so far (gpuctl hostkeys scan ...), skipping options and their values.
  local -a path=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    word=${COMP_WORDS[i]}
    case $word in
      -*) continue ;;
    esac
    case ${COMP_WORDS[i-1]} in
      --color|--connection|-l|--limit|-f|--forks|-p|--playbook|--templates|-o|--out|--junit|--html|--prom|--from-json|-t|--timeout|--node|--reboot-timeout) continue ;;
    esac
    if [[ " $(_gpuctl_help_words Subcommands "${path[@]}" | tr '\n' ' ') " == *" $word "* ]]; then
      path+=("$word")
    fi
  done

  case $prev in
    --color) mapfile -t COMPREPLY < <(compgen -W "auto always never" -- "$cur"); return ;;
    --connection) mapfile -t COMPREPLY < <(compgen -W "ssh local" -- "$cur"); return ;;
    -p|--playbook) mapfile -t COMPREPLY < <(compgen -W "gpu-node head-node" -- "$cur"; compgen -f -X '!*.y*ml' -- "$cur"); return ;;
    --templates) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
    # -o/--out: plan's saved plan (a file) or render's tree (a directory); compgen -f gives both.
    -o|--out|--junit|--html|--prom|--from-json) mapfile -t COMPREPLY < <(compgen -f -- "$cur"); return ;;
    -l|--limit|-f|--forks|-t|--timeout|--node|--reboot-timeout) return ;;
  esac

  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_gpuctl_options "${path[@]}")" -- "$cur")
    return
  fi
  local subcommands
  subcommands=$(_gpuctl_help_words Subcommands "${path[@]}")
  if [[ -n $subcommands ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$subcommands" -- "$cur")
    return  # a command with subcommands takes one of them next, not a file
  fi
  # Positional arguments: an inventory (YAML) or a saved plan/result (JSON).
  compopt -o filenames 2>/dev/null
  local f
  while IFS= read -r f; do
    if [[ -d $f ]]; then COMPREPLY+=("$f"); continue; fi
    case $f in *.yaml|*.yml|*.json) COMPREPLY+=("$f") ;; esac
  done < <(compgen -f -- "$cur")
}

complete -F _gpuctl gpuctl
