# shellcheck shell=sh
# The fabricmanager_log probe (facts/fabricmanager_log.cpp): the last [ERROR]/[FATAL] lines of the
# fabric manager's log. Its path is fabricmanager.cfg's LOG_FILE_NAME (NVIDIA's Fabric Manager
# user guide), /var/log/fabricmanager.log by default. A shell function body: `return` ends it.
f=/var/log/fabricmanager.log
for c in /usr/share/nvidia/nvswitch/fabricmanager.cfg /etc/nvidia/fabricmanager.cfg; do
  [ -r "$c" ] || continue
  # The shell's read, not a helper process per probe (the batch spawns only what must answer).
  while IFS= read -r line; do
    case $line in LOG_FILE_NAME=?*) f=${line#LOG_FILE_NAME=} ;; esac
  done < "$c"
  break
done
echo "@@fmlog $f"
[ -e "$f" ] || { echo '@@fmlog-absent'; return 0; }
[ -r "$f" ] || { echo '@@fmlog-unreadable'; return 0; }
tail -n 20000 -- "$f" | grep -e '\] \[ERROR\] ' -e '\] \[FATAL\] ' | tail -n 20
return 0
