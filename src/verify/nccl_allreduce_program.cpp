// The C source of gpuctl's own NCCL all-reduce program, compiled on the node by verify when
// nccl-tests' all_reduce_perf is not installed (verify/nccl_allreduce.hpp). Kept as C with its
// own declarations so that only cc and the node's libcuda.so.1 and libnccl.so.2 are needed.
#include <gpuctl/verify/nccl_allreduce.hpp>

namespace gpuctl {

std::string_view nccl_allreduce_program_source() {
  return R"gpuctl_c(
/* gpuctl's NCCL all-reduce check (shipped inside gpuctl, compiled on the node with cc).
   Needs no CUDA headers: the few CUDA driver API and NCCL entry points it calls are declared
   here and resolved with dlopen. The driver's libcuda.so.1 comes with every NVIDIA driver;
   libnccl.so.2 carries its own CUDA runtime. One communicator rank per local GPU, an int32 sum
   of known values (exact for any number of ranks gpuctl runs), every element checked, bus
   bandwidth as nccl-tests defines it.
   Usage: gpuctl-nccl-allreduce BYTES ITERATIONS                 all GPUs of this machine
          gpuctl-nccl-allreduce BYTES ITERATIONS PROCESS PROCESSES GPUS
            one of PROCESSES processes (one per node, as srun starts them), each with GPUS GPUs;
            process P holds ranks P*GPUS .. P*GPUS+GPUS-1. Needs NCCL_COMM_ID=HOST:PORT, the
            same in every process: NCCL then derives the same unique id everywhere and rank 0
            listens there, so no MPI is needed to hand the id around.
   Prints one line starting "gpuctl-nccl-allreduce:". Exits 0 with that line (in the
   multi-process mode also when elements are wrong: the collective is over and its wrong= count
   says it, so Slurm has no reason to stop the other processes before they print theirs), 1 on
   wrong elements on one machine, 2 on an error. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef void *CUcontext;
typedef void *CUstream;
typedef unsigned long long CUdeviceptr;
typedef void *ncclComm_t;
typedef struct {
  char internal[128]; /* NCCL_UNIQUE_ID_BYTES */
} ncclUniqueId;

#define MAX_GPUS 64
#define NCCL_INT32 2
#define NCCL_SUM 0

static CUresult (*cu_init)(unsigned);
static CUresult (*cu_device_count)(int *);
static CUresult (*cu_device_get)(CUdevice *, int);
static CUresult (*cu_primary_ctx_retain)(CUcontext *, CUdevice);
static CUresult (*cu_ctx_set_current)(CUcontext);
static CUresult (*cu_mem_alloc)(CUdeviceptr *, size_t);
static CUresult (*cu_mem_free)(CUdeviceptr);
static CUresult (*cu_htod)(CUdeviceptr, const void *, size_t);
static CUresult (*cu_dtoh)(void *, CUdeviceptr, size_t);
static CUresult (*cu_stream_create)(CUstream *, unsigned);
static CUresult (*cu_stream_sync)(CUstream);
static CUresult (*cu_error_string)(CUresult, const char **);
static int (*nccl_comm_init_all)(ncclComm_t *, int, const int *);
static int (*nccl_get_unique_id)(ncclUniqueId *);
static int (*nccl_comm_init_rank)(ncclComm_t *, int, ncclUniqueId, int);
static int (*nccl_all_reduce)(const void *, void *, size_t, int, int, ncclComm_t, CUstream);
static int (*nccl_group_start)(void);
static int (*nccl_group_end)(void);
static int (*nccl_comm_destroy)(ncclComm_t);
static int (*nccl_get_version)(int *);
static const char *(*nccl_error_string)(int);

static void die(const char *what, const char *why) {
  printf("gpuctl-nccl-allreduce: error: %s: %s\n", what, why);
  exit(2);
}

static void *open_first(const char *const *names, const char *what) {
  for (int i = 0; names[i]; ++i) {
    void *handle = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (handle) return handle;
  }
  die(what, dlerror());
  return NULL;
}

static void *symbol(void *library, const char *name) {
  void *address = dlsym(library, name);
  if (!address) die("missing symbol", name);
  return address;
}

static void cu_check(CUresult result, const char *what) {
  if (result == 0) return;
  const char *text = "unknown error";
  if (cu_error_string) cu_error_string(result, &text);
  die(what, text);
}

static void nccl_check(int result, const char *what) {
  if (result != 0) die(what, nccl_error_string ? nccl_error_string(result) : "NCCL error");
}

/* Rank r contributes (r + 1) * (i % 13 + 1) at element i; the sum over R ranks,
   13 * R * (R + 1) / 2 at most, stays within int32 up to 12,000 ranks. */
static int contribution(int rank, size_t i) { return (rank + 1) * (int)(i % 13 + 1); }

static double seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc != 3 && argc != 6)
    die("usage", "gpuctl-nccl-allreduce BYTES ITERATIONS [PROCESS PROCESSES GPUS_PER_PROCESS]");
  const size_t count = (size_t)strtoull(argv[1], NULL, 10) / sizeof(int);
  const int iterations = atoi(argv[2]);
  if (count == 0 || iterations < 1) die("usage", "BYTES must be at least 4 and ITERATIONS at least 1");
  const int processes = argc == 6 ? atoi(argv[4]) : 1;
  const int process = argc == 6 ? atoi(argv[3]) : 0;
  const int wanted_gpus = argc == 6 ? atoi(argv[5]) : 0;
  if (argc == 6 && (processes < 1 || process < 0 || process >= processes || wanted_gpus < 1 || wanted_gpus > MAX_GPUS))
    die("usage", "PROCESS must be below PROCESSES and GPUS_PER_PROCESS between 1 and 64");
  if (argc == 6 && !getenv("NCCL_COMM_ID"))
    die("usage", "NCCL_COMM_ID=HOST:PORT must be set (the same in every process)");

  static const char *const cuda_names[] = {"libcuda.so.1", "libcuda.so", NULL};
  static const char *const nccl_names[] = {"libnccl.so.2", "libnccl.so", NULL};
  void *cuda = open_first(cuda_names, "cannot load the CUDA driver library libcuda.so.1");
  void *nccl = open_first(nccl_names, "cannot load NCCL (libnccl.so.2)");
  *(void **)&cu_error_string = symbol(cuda, "cuGetErrorString");
  *(void **)&cu_init = symbol(cuda, "cuInit");
  *(void **)&cu_device_count = symbol(cuda, "cuDeviceGetCount");
  *(void **)&cu_device_get = symbol(cuda, "cuDeviceGet");
  *(void **)&cu_primary_ctx_retain = symbol(cuda, "cuDevicePrimaryCtxRetain");
  *(void **)&cu_ctx_set_current = symbol(cuda, "cuCtxSetCurrent");
  *(void **)&cu_mem_alloc = symbol(cuda, "cuMemAlloc_v2");
  *(void **)&cu_mem_free = symbol(cuda, "cuMemFree_v2");
  *(void **)&cu_htod = symbol(cuda, "cuMemcpyHtoD_v2");
  *(void **)&cu_dtoh = symbol(cuda, "cuMemcpyDtoH_v2");
  *(void **)&cu_stream_create = symbol(cuda, "cuStreamCreate");
  *(void **)&cu_stream_sync = symbol(cuda, "cuStreamSynchronize");
  *(void **)&nccl_error_string = symbol(nccl, "ncclGetErrorString");
  *(void **)&nccl_comm_init_all = symbol(nccl, "ncclCommInitAll");
  *(void **)&nccl_get_unique_id = symbol(nccl, "ncclGetUniqueId");
  *(void **)&nccl_comm_init_rank = symbol(nccl, "ncclCommInitRank");
  *(void **)&nccl_all_reduce = symbol(nccl, "ncclAllReduce");
  *(void **)&nccl_group_start = symbol(nccl, "ncclGroupStart");
  *(void **)&nccl_group_end = symbol(nccl, "ncclGroupEnd");
  *(void **)&nccl_comm_destroy = symbol(nccl, "ncclCommDestroy");
  *(void **)&nccl_get_version = symbol(nccl, "ncclGetVersion");

  cu_check(cu_init(0), "cuInit");
  int gpus = 0;
  cu_check(cu_device_count(&gpus), "cuDeviceGetCount");
  if (gpus < 1) die("no GPU", "the CUDA driver sees no device");
  if (gpus > MAX_GPUS) gpus = MAX_GPUS;
  if (wanted_gpus > 0) {
    /* Every process must bring the same number of ranks, or the others wait for ranks that
       never come: a node with fewer GPUs than declared stops the run here. */
    if (gpus < wanted_gpus) {
      char why[96];
      snprintf(why, sizeof why, "the CUDA driver sees %d GPUs, %d expected", gpus, wanted_gpus);
      die("too few GPUs", why);
    }
    gpus = wanted_gpus;
  }
  const int ranks = gpus * processes;
  int version = 0;
  nccl_check(nccl_get_version(&version), "ncclGetVersion");

  CUcontext contexts[MAX_GPUS];
  CUstream streams[MAX_GPUS];
  CUdeviceptr send[MAX_GPUS], receive[MAX_GPUS];
  ncclComm_t comms[MAX_GPUS];
  const size_t bytes = count * sizeof(int);
  int *host = malloc(bytes);
  if (!host) die("malloc", "out of host memory");
  for (int g = 0; g < gpus; ++g) {
    CUdevice device;
    cu_check(cu_device_get(&device, g), "cuDeviceGet");
    cu_check(cu_primary_ctx_retain(&contexts[g], device), "cuDevicePrimaryCtxRetain");
    cu_check(cu_ctx_set_current(contexts[g]), "cuCtxSetCurrent");
    cu_check(cu_stream_create(&streams[g], 0), "cuStreamCreate");
    cu_check(cu_mem_alloc(&send[g], bytes), "cuMemAlloc (send buffer)");
    cu_check(cu_mem_alloc(&receive[g], bytes), "cuMemAlloc (receive buffer)");
    for (size_t i = 0; i < count; ++i) host[i] = contribution(process * gpus + g, i);
    cu_check(cu_htod(send[g], host, bytes), "cuMemcpyHtoD");
    memset(host, 0xff, bytes); /* -1, never a sum: an element the all-reduce never writes is caught */
    cu_check(cu_htod(receive[g], host, bytes), "cuMemcpyHtoD");
  }
  if (processes == 1) {
    nccl_check(nccl_comm_init_all(comms, gpus, NULL), "ncclCommInitAll");
  } else {
    ncclUniqueId id;
    nccl_check(nccl_get_unique_id(&id), "ncclGetUniqueId (NCCL_COMM_ID)");
    nccl_check(nccl_group_start(), "ncclGroupStart");
    for (int g = 0; g < gpus; ++g) {
      cu_check(cu_ctx_set_current(contexts[g]), "cuCtxSetCurrent");
      nccl_check(nccl_comm_init_rank(&comms[g], ranks, id, process * gpus + g), "ncclCommInitRank");
    }
    nccl_check(nccl_group_end(), "ncclCommInitRank (group)");
  }

  /* One untimed warm-up (connections are set up lazily), then the timed iterations. */
  double start = 0;
  for (int iteration = -1; iteration < iterations; ++iteration) {
    if (iteration == 0) start = seconds();
    nccl_check(nccl_group_start(), "ncclGroupStart");
    for (int g = 0; g < gpus; ++g)
      nccl_check(nccl_all_reduce((const void *)send[g], (void *)receive[g], count, NCCL_INT32, NCCL_SUM, comms[g],
                                 streams[g]),
                 "ncclAllReduce");
    nccl_check(nccl_group_end(), "ncclGroupEnd");
    for (int g = 0; g < gpus; ++g) {
      cu_check(cu_ctx_set_current(contexts[g]), "cuCtxSetCurrent");
      cu_check(cu_stream_sync(streams[g]), "cuStreamSynchronize");
    }
  }
  const double elapsed = seconds() - start;

  unsigned long long wrong = 0;
  const long long ranks_sum = (long long)ranks * (ranks + 1) / 2;
  for (int g = 0; g < gpus; ++g) {
    cu_check(cu_ctx_set_current(contexts[g]), "cuCtxSetCurrent");
    cu_check(cu_dtoh(host, receive[g], bytes), "cuMemcpyDtoH");
    for (size_t i = 0; i < count; ++i)
      if ((long long)host[i] != ranks_sum * (long long)(i % 13 + 1)) ++wrong;
    cu_mem_free(send[g]);
    cu_mem_free(receive[g]);
    nccl_comm_destroy(comms[g]);
  }
  free(host);

  const double per_iteration = elapsed / iterations;
  const double algbw = (double)bytes / per_iteration / 1e9;
  const double busbw = algbw * 2.0 * (ranks - 1) / ranks;
  printf("gpuctl-nccl-allreduce: gpus=%d local_gpus=%d process=%d processes=%d bytes=%zu iterations=%d time_us=%.1f "
         "algbw_GBps=%.2f busbw_GBps=%.2f wrong=%llu nccl=%d\n",
         ranks, gpus, process, processes, bytes, iterations, per_iteration * 1e6, algbw, busbw, wrong, version);
  return processes > 1 || wrong == 0 ? 0 : 1;
}
)gpuctl_c";
}

}  // namespace gpuctl
