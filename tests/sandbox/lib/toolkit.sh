# The CUDA toolkit's own files as NVIDIA's packages and runfile lay them out (sourced): shared
# by the sandbox repository's toolkit stand-in and bench/lightnodes' node layer.

# version.json of toolkit VERSION (tests/data/cuda/): the SDK's version, and nvcc's ("V" version).
cuda_version_json() {  # VERSION
  printf '{\n   "cuda" : {\n      "name" : "CUDA SDK",\n      "version" : "%s.1"\n   },\n   "cuda_nvcc" : {\n      "name" : "CUDA NVCC",\n      "version" : "%s.131"\n   }\n}\n' \
    "$1" "$1"
}
