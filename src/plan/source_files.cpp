#include <gpuctl/plan/source_files.hpp>

#include <gpuctl/util/file_io.hpp>
#include <gpuctl/util/openpgp.hpp>

#include <fmt/format.h>

namespace gpuctl {
namespace {

constexpr std::string_view k_key_setting = "cluster.nvidia.repository.key_file";

Result<std::string> check_repository_key(std::string content, const FileResource& file) {
  const auto encoding = util::check_openpgp_public_key(content);
  if (!encoding)
    return fail(ErrorCode::validation, fmt::format("{} {} {}", k_key_setting, file.source, encoding.error().message),
                {},
                fmt::format("name the repository's OpenPGP public key (armored, as `gpg --armor --export KEYID` "
                            "writes it, or binary, as `gpg --export KEYID`)"));
  // apt's signed-by reads a keyring named *.asc as armored and any other as binary.
  if (*encoding == util::OpenPgpEncoding::binary && file.path.ends_with(".asc"))
    return fail(ErrorCode::validation,
                fmt::format("{} {} is a binary OpenPGP key, but it goes to {}, which apt reads as armored text",
                            k_key_setting, file.source, file.path),
                {}, "give the key file a name ending in .gpg, or armor it (gpg --enarmor)");
  if (*encoding == util::OpenPgpEncoding::armored && file.path.ends_with(".gpg"))
    return fail(ErrorCode::validation,
                fmt::format("{} {} is an armored OpenPGP key, but it goes to {}, which apt reads as binary",
                            k_key_setting, file.source, file.path),
                {}, "give the key file a name ending in .asc, or convert it (gpg --dearmor)");
  return content;
}

}  // namespace

Result<std::string> read_source_file(const FileResource& file, const Inventory& inventory) {
  const bool repository_key = file.source == inventory.cluster.nvidia.repository.key_file;
  auto content = util::read_regular_file(file.source, repository_key ? k_key_setting : "source file",
                                         util::k_max_source_file_bytes);
  if (!content || !repository_key) return content;
  return check_repository_key(std::move(*content), file);
}

}  // namespace gpuctl
