/* The sandbox's stand-in for pyxis's SPANK plugin (nvslurm-plugin-pyxis): a real SPANK plugin,
 * built against the build machine's libslurm-dev (Debian 12's Slurm, the nodes' Slurm), that
 * registers pyxis's srun options with pyxis's argument forms (NVIDIA/pyxis README, "Usage") and
 * does nothing with them: the sandbox has no enroot to start a container with. It lets Slurm's
 * own srun and slurmd prove that the plugin stack gpuctl writes loads. Not NVIDIA software. */
#include <stddef.h>
#include <slurm/spank.h>

SPANK_PLUGIN(pyxis, 1)

static int accept_option(int val, const char *optarg, int remote) {
  (void)val;
  (void)optarg;
  (void)remote;
  return 0;
}

static struct spank_option pyxis_options[] = {
    {"container-image", "[USER@][REGISTRY#]IMAGE[:TAG]|PATH", "[pyxis] the image to use for the container filesystem", 1, 0,
     accept_option},
    {"container-mounts", "SRC:DST[:FLAGS][,SRC:DST...]", "[pyxis] bind mount[s] inside the container", 1, 0, accept_option},
    {"container-workdir", "PATH", "[pyxis] working directory inside the container", 1, 0, accept_option},
    {"container-name", "NAME", "[pyxis] name to use for saving and loading the container on the host", 1, 0, accept_option},
    SPANK_OPTIONS_TABLE_END};

int slurm_spank_init(spank_t sp, int ac, char **av) {
  (void)ac;
  (void)av;
  for (struct spank_option *o = pyxis_options; o->name; ++o)
    if (spank_option_register(sp, o) != ESPANK_SUCCESS) return -1;
  return 0;
}
