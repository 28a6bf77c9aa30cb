// The grammars accept what real inventories write (NVIDIA's repository, mirrors behind a port
// or on IPv6, air-gapped file: repositories, NCCL's "=" and "^" selectors, Slurm hostlists and
// plugin lists) and refuse the near misses, with a reason.
#include "inventory/formats.hpp"
#include "inventory/names.hpp"
#include "inventory/values.hpp"

#include <gtest/gtest.h>

using namespace gpuctl::inventory_detail;

namespace {

TEST(InventoryValues, AcceptsRealUrls) {
  for (const char* url : {"https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/",
                          "http://mirror.lab:8080/cuda/", "http://[fd00::10]:8080/cuda/", "https://10.0.0.5/cuda",
                          "https://ops@mirror.example.com/cuda/?token=a1%2Fb&arch=amd64", "file:/srv/gpuctl-sandbox/cuda/",
                          "file:///srv/gpuctl-sandbox/cuda/gpuctl-sandbox-cuda.pub"})
    EXPECT_EQ(check_url(url), std::nullopt) << url;
}

TEST(InventoryValues, RefusesNearMissUrls) {
  EXPECT_EQ(check_url("https://"), "has no host");
  EXPECT_EQ(check_url("https://mirror:99999/"), "has the port '99999', not a number from 1 to 65535");
  EXPECT_EQ(check_url("https://mirror/a#b"), "contains the shell metacharacter '#' (URLs take letters, digits and - . _ ~ : / ? = & % + , @)");
  EXPECT_EQ(check_url("file:srv/cuda"), "is a file: URL without an absolute path (write file:/srv/mirror/ or file:///srv/mirror/)");
  EXPECT_EQ(check_url("https://mirror/cuda/./x"), "has a '.' path segment");
  EXPECT_EQ(check_url("https://bad_host/"), "has the host 'bad_host', which contains '_' (letters, digits, '-' and '.' only)");
  EXPECT_EQ(check_url("HTTPS://mirror/"), "must start with https://, http:// or file:/");
}

TEST(InventoryValues, VersionsAreDottedNumbers) {
  EXPECT_EQ(check_driver_branch("550"), std::nullopt);
  EXPECT_EQ(check_driver_version("550.127.08"), std::nullopt);
  EXPECT_EQ(check_driver_version("535.183.01"), std::nullopt);
  EXPECT_EQ(check_cuda_version("12.10"), std::nullopt);
  EXPECT_EQ(check_driver_branch("55 0"), "contains whitespace (a driver branch is digits only)");
  EXPECT_EQ(check_driver_version("550"), "must have 2 to 4 numbers, not 1");
  EXPECT_EQ(check_driver_version("550.127."), "has an empty number (a leading, trailing or doubled '.')");
  EXPECT_EQ(check_cuda_version("12"), "must have 2 numbers, not 1");
}

TEST(InventoryValues, PathsAreAbsoluteAndNormalised) {
  EXPECT_EQ(check_path("/etc/gpuctl/cuda-keyring.gpg"), std::nullopt);
  EXPECT_EQ(check_path("~/.ssh/id_ed25519", HomePrefix::allowed), std::nullopt);
  EXPECT_EQ(check_path("~/.ssh/id_ed25519"), "contains '~' (write the full path)");
  EXPECT_EQ(check_path("~root/.ssh/id", HomePrefix::allowed), "contains '~' other than a leading '~/'");
  EXPECT_EQ(check_path("/etc/keys/"), "ends with '/' (a file is needed, not a directory)");
  EXPECT_EQ(check_path("/etc/./keys"), "has a '.' component");
  EXPECT_EQ(check_path("id_ed25519"), "is not an absolute path");
}

TEST(InventoryValues, NamesAndLabels) {
  EXPECT_EQ(check_name("H100-SXM5-80GB"), std::nullopt);
  EXPECT_EQ(check_name("_scratch"), std::nullopt);
  EXPECT_EQ(check_name(".hidden"), "must start with a letter, a digit or '_'");
  EXPECT_EQ(check_name("a..b"), "contains '..'");
  EXPECT_EQ(check_name(std::string(64, 'a')), "is longer than 63 characters");
  EXPECT_EQ(check_hca("mlx5_0:1"), std::nullopt);
  EXPECT_EQ(check_label_key("topology/zone"), std::nullopt);
  EXPECT_EQ(check_label_key("topology//zone"), "has an empty part (a leading, trailing or doubled '/')");
  EXPECT_EQ(check_label_value("spare node, row 3"), std::nullopt);
  EXPECT_EQ(check_label_value("trailing "), "starts or ends with a space");
}

TEST(InventoryFormats, SlurmAndNcclWords) {
  for (const char* value : {"INFINITE", "01:00:00", "task/cgroup,task/affinity", "gpu[01-04]", "bf_continue,bf_max_job_test=1000",
                            "/var/log/slurm/%n.log"})
    EXPECT_EQ(check_slurm_value(value), std::nullopt) << value;
  for (const char* value : {"=bond0", "^mlx5_2", "mlx5_0:1,mlx5_1:1", "0", "WARN"})
    EXPECT_EQ(check_nccl_value(value), std::nullopt) << value;
  EXPECT_EQ(check_slurm_key("SchedulerParameters"), std::nullopt);
  EXPECT_EQ(check_slurm_key("9Lives"), "must start with a letter");
  EXPECT_EQ(check_nccl_key("NCCL_"), "has nothing after NCCL_");
  EXPECT_EQ(check_nccl_value(std::string(1024, 'a')), "is longer than 1023 characters");
  EXPECT_EQ(reserved_slurm_key("nodename", k_slurm_file_keys), "NodeName");
  EXPECT_EQ(reserved_slurm_key("MaxTime", k_slurm_partition_keys), std::nullopt);
}

}  // namespace
