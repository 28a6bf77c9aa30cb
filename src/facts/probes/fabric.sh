# shellcheck shell=sh
# The fabric probe (facts/optional_facts.cpp): each GPU's Fabric section of `nvidia-smi -q` (the
# CSV query has no health field), cut by the shell's read to the unindented lines (the GPU
# headers, nvidia-smi's own complaints) and those sections, so a citation shows them. The exit
# status travels in the output, as the kernel_xids probe's does. A shell function body.
command -v nvidia-smi >/dev/null 2>&1 || { echo 'nvidia-smi: command not found' >&2; return 127; }
keep=0
# shellcheck disable=SC2086 # $T is the timeout command and its options, split on purpose
{ $T nvidia-smi -q 2>&1; echo "@@smi-rc $?"; } | while IFS= read -r line; do
  case $line in
    '    Fabric') keep=1; printf '%s\n' "$line" ;;
    '        '*) [ "$keep" = 1 ] && printf '%s\n' "$line" ;;
    ' '*) keep=0 ;;
    *) keep=0; printf '%s\n' "$line" ;;
  esac
done
return 0
