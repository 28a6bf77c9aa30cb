#!/usr/bin/env bash
# Containers in Slurm jobs (docs/containers.md#slurm-enroot-and-pyxis) on real Slurm: head01
# with slurmctld, node01 (2 GPUs) with slurmd and `containers`, and a site repository of enroot
# and pyxis (the sandbox's stand-ins, built from tests/data/containers/slurm-container-packages.txt,
# not from the playbook; pyxis's plugin is a real SPANK plugin built against Debian 12's Slurm).
# The plan installs both and puts pyxis into Slurm's plugin stack; after apply slurmd runs with the
# plugin `required`, slurm_pyxis passes (Slurm's own srun offers --container-image), and a job
# with --container-image runs through slurmd and slurmstepd. A plugin Slurm cannot load (a pyxis
# built for another Slurm) fails slurm_pyxis with Slurm's words. Network 127.0.210, stopped on exit.
export GPUCTL_SANDBOX_NET=127.0.210
source "$(dirname "$0")/lib/cluster.sh"
command -v jq >/dev/null || skip "jq missing"
command -v python3 >/dev/null || skip "python3 missing"
start_cluster -n 1 --gpus 2 --model H100 --head
g() { "$GPUCTL" "$@" --no-progress; }
on() { "$SANDBOX_CMD" ssh node01 "$1"; }
pyxis_check() {  # "status observed | detail" of node01's slurm_pyxis
  g verify "$INVENTORY" --json -l node01 | jq -r '.nodes[0].checks[] | select(.check == "slurm_pyxis") | "\(.status) \(.observed) | \(.detail)"'
}
t0=$SECONDS

# The site's repository key, as an admin would keep it on the control host.
on 'cat /srv/gpuctl-sandbox/cuda/slurm-containers/gpgkey' > "$WORK/slurm-containers.asc" || die "no site repository in the sandbox"
python3 - "$INVENTORY" "$WORK/slurm-containers.asc" <<'PY'
import sys
path, key = sys.argv[1], sys.argv[2]
text = open(path).read()
anchor = "\ndefaults:\n"
assert anchor in text
text = text.replace(anchor, f"""  containers:
    toolkit_version: "1.17.8"
    repository: {{url: "file:/srv/gpuctl-sandbox/cuda/libnvidia-container", key_url: "file:///srv/gpuctl-sandbox/cuda/libnvidia-container/gpgkey"}}
    slurm_repository: {{url: "file:/srv/gpuctl-sandbox/cuda/slurm-containers", key_file: "{key}"}}
""" + anchor, 1)
anchor = "      pdu_capacity_watts:"
assert anchor in text
text = text.replace(anchor, "      containers: {runtime: podman}\n" + anchor, 1)
open(path, "w").write(text)
PY
expect_rc 0 "$GPUCTL" validate "$INVENTORY"

echo "--- plan: enroot and pyxis from the site's repository, pyxis in Slurm's plugin stack"
expect_rc 2 g plan "$INVENTORY" --detailed-exitcode
expect_output '\[slurm-containers\]' "the slurm-containers step is planned"
for p in enroot nvslurm-plugin-pyxis; do expect_output "\+ install $p" "plan installs $p"; done
expect_output '\+ create /etc/slurm/plugstack.conf.d/pyxis.conf' "plan writes pyxis's plugstack entry"
expect_output 'include /usr/share/pyxis/pyxis.conf' "the entry includes the package's own line"

echo "--- apply; slurmd runs with pyxis required, and Slurm's srun loads it"
expect_rc 0 g apply "$INVENTORY" --yes
echo "apply: $((SECONDS - t0)) s"
for _ in $(seq 12); do OUTPUT=$(pyxis_check); [[ $OUTPUT == pass* ]] && break; sleep 2; done
echo "$OUTPUT"
expect_output '^pass .*nvslurm-plugin-pyxis 0\.21\.0-1.*enroot 3\.5\.0; srun --help offers --container-image' "slurm_pyxis passes"
[[ $(on 'systemctl is-active slurmd') == active ]] || die "slurmd is not running with pyxis in its plugin stack"
for _ in $(seq 30); do
  state=$("$SANDBOX_CMD" ssh head01 'sinfo -h -n node01 -o %T' 2>/dev/null) && [[ $state == idle ]] && break
  sleep 1
done
[[ ${state:-} == idle ]] || die "node01 is not idle in Slurm after apply: ${state:-no answer}"

echo "--- a job with --container-image runs through slurmd and slurmstepd (the plugin is loaded there too)"
OUTPUT=$(on 'srun -w node01 -N 1 -n 1 -t 1 --container-image=nvcr.io#nvidia/cuda:12.4.1-base-ubuntu22.04 hostname' 2>&1) ||
  die "the job with --container-image failed:\n$OUTPUT"
expect_output '^node01$' "the job ran on node01"

echo "--- a pyxis Slurm cannot load (built for another Slurm): slurm_pyxis fails with Slurm's words"
# A SPANK plugin that needs a symbol this Slurm does not export, as a pyxis built against another
# Slurm's headers does (NVIDIA/pyxis#25: "undefined symbol: slurm_spank_log").
printf '#include <stddef.h>\n#include <slurm/spank.h>\nSPANK_PLUGIN(pyxis, 1)\nextern int slurm_spank_from_another_release;\nint slurm_spank_init(spank_t sp, int ac, char **av) { (void)sp; (void)ac; (void)av; return slurm_spank_from_another_release; }\n' > "$WORK/other.c"
gcc -shared -fPIC -o "$WORK/other.so" "$WORK/other.c" || die "could not build the foreign plugin"
on 'cp /usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so /root/spank_pyxis.so.good && cat > /usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so' < "$WORK/other.so" ||
  die "could not replace the plugin"
OUTPUT=$(pyxis_check)
echo "$OUTPUT"
expect_output '^fail .*srun: error: plugin_load_from_file: dlopen\(/usr/lib/x86_64-linux-gnu/slurm/spank_pyxis\.so\).*undefined symbol: slurm_spank_from_another_release' \
  "slurm_pyxis fails with dlopen's reason, as srun prints it"
expect_output 'libslurm-dev' "the failure says how to fix it"
expect_rc 3 g verify "$INVENTORY" -l node01
on 'mv /root/spank_pyxis.so.good /usr/lib/x86_64-linux-gnu/slurm/spank_pyxis.so' || die "could not restore the plugin"
OUTPUT=$(pyxis_check)
expect_output '^pass ' "slurm_pyxis passes again with the plugin restored"

echo "--- a second plan changes nothing"
expect_rc 0 g plan "$INVENTORY" --detailed-exitcode

echo "--- pyxis's arguments from the inventory reach the plugin line, and slurmd loads it"
sed -i 's|^    slurm_repository: |    pyxis: {sbatch_support: false, container_scope: job}\n&|' "$INVENTORY"
expect_rc 0 "$GPUCTL" validate "$INVENTORY"
expect_rc 2 g plan "$INVENTORY" --detailed-exitcode
expect_output 'required /usr/lib/x86_64-linux-gnu/slurm/spank_pyxis\.so container_scope=job sbatch_support=false' \
  "the plan writes pyxis's own line with the arguments, in pyxis's order"
expect_rc 0 g apply "$INVENTORY" --yes
for _ in $(seq 12); do OUTPUT=$(pyxis_check); [[ $OUTPUT == pass* ]] && break; sleep 2; done
expect_output '^pass ' "slurm_pyxis passes with the arguments"
[[ $(on 'systemctl is-active slurmd') == active ]] || die "slurmd does not run with pyxis's arguments"
# An argument validate would refuse, written by hand: the plugin refuses it, as pyxis does, and
# slurm_pyxis fails with its words (the class of a pyxis older than the inventory's arguments).
on "sed -i 's/sbatch_support=false\$/sbatch_support=false importer=\/usr\/bin\/x/' /etc/slurm/plugstack.conf.d/pyxis.conf" ||
  die "could not edit the plugin line"
OUTPUT=$(pyxis_check)
expect_output '^fail .*pyxis: unknown configuration option: importer=/usr/bin/x' "slurm_pyxis quotes the plugin's refusal"
expect_rc 0 g apply "$INVENTORY" --yes
OUTPUT=$(pyxis_check)
expect_output '^pass ' "apply restores the line, and slurm_pyxis passes"
echo "PASS: slurm_containers ($((SECONDS - t0)) s)"
