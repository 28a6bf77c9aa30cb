# The fuzz targets: tests/fuzz/<name>.cpp each, with seeds in corpus/<name>/ and kept crash
# reproducers in regressions/<name>/. Shared by the libFuzzer build (CMakeLists.txt here) and
# the replay tests of the normal build (replay.cmake).
set(GPUCTL_FUZZ_TARGETS
  hostlist
  inventory_loader
  playbook_loader
  plan_json
  nvidia_smi_parsers
  probe_output)
