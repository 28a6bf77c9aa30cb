/* The sandbox's stand-in for pyxis's SPANK plugin (nvslurm-plugin-pyxis): a real SPANK plugin,
 * built against the build machine's libslurm-dev (Debian 12's Slurm, the nodes' Slurm), that
 * registers pyxis's srun options with pyxis's argument forms (NVIDIA/pyxis README, "Usage") and
 * does nothing with them: the sandbox has no enroot to start a container with. It lets Slurm's
 * own srun and slurmd prove that the plugin stack gpuctl writes loads. Its plugstack arguments are
 * pyxis's (NVIDIA/pyxis config.c; its wiki, "Setup"): a name it does not know, or a value
 * out of its form, fails its init with pyxis's message, as pyxis does. Not NVIDIA software. */
#include <stddef.h>
#include <string.h>
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

static int is_bool(const char *v) {
  return !strcmp(v, "1") || !strcmp(v, "0") || !strcmp(v, "true") || !strcmp(v, "false") || !strcmp(v, "yes") ||
         !strcmp(v, "no") || !strcmp(v, "y") || !strcmp(v, "n");
}

/* Checks `arg` as pyxis's config.c does: 0 when it is one of pyxis's arguments with a value of
 * its form (runtime_path takes any path); else an error in pyxis's words, and -1. */
static int check_argument(const char *arg) {
  static const char *const booleans[] = {"execute_entrypoint", "sbatch_support", "use_enroot_load", NULL};
  const char *eq = strchr(arg, '=');
  const size_t key = eq ? (size_t)(eq - arg) : 0;
  if (eq && key == 12 && !strncmp(arg, "runtime_path", key)) return 0;
  if (eq && key == 15 && !strncmp(arg, "container_scope", key)) {
    if (!strcmp(eq + 1, "job") || !strcmp(eq + 1, "global")) return 0;
    slurm_error("pyxis: container_scope: invalid value: %s", eq + 1);
    return -1;
  }
  for (const char *const *b = booleans; eq && *b; ++b)
    if (strlen(*b) == key && !strncmp(arg, *b, key)) {
      if (is_bool(eq + 1)) return 0;
      slurm_error("pyxis: %s: invalid value: %s", *b, eq + 1);
      return -1;
    }
  slurm_error("pyxis: unknown configuration option: %s", arg);
  return -1;
}

int slurm_spank_init(spank_t sp, int ac, char **av) {
  for (int i = 0; i < ac; ++i)
    if (check_argument(av[i])) return -1;
  for (struct spank_option *o = pyxis_options; o->name; ++o)
    if (spank_option_register(sp, o) != ESPANK_SUCCESS) return -1;
  return 0;
}
