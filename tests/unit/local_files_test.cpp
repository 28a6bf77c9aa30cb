// Local files that gpuctl copies to nodes (`source:`, the repository key_file): read without
// following links or hanging on FIFOs, bounded in size, and the repository key must be an
// OpenPGP public key (util/file_io.hpp, util/openpgp.hpp, plan/source_files.hpp).
#include <gpuctl/inventory/loader.hpp>
#include <gpuctl/plan/source_files.hpp>
#include <gpuctl/util/data_dir.hpp>
#include <gpuctl/util/file_io.hpp>
#include <gpuctl/util/openpgp.hpp>

#include "temp_dir.hpp"

#include <gpuctl_build_paths.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace gpuctl {
namespace {

using testing::TempDir;
using testing::read_binary;

const std::string k_data = std::string(GPUCTL_SOURCE_DIR) + "/tests/data/openpgp";

std::string armored_key() { return read_binary(k_data + "/repository-key.asc"); }
std::string binary_key() { return read_binary(k_data + "/repository-key.gpg"); }

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// A read that would block forever kills the test (SIGALRM) instead of hanging it.
struct HangGuard {
  HangGuard() { ::alarm(10); }
  ~HangGuard() { ::alarm(0); }
};

TEST(ReadRegularFile, ReadsARegularFile) {
  TempDir dir;
  const auto path = dir.write("f", "hello\n", 0644);
  auto content = util::read_regular_file(path, "source file", 1024);
  ASSERT_TRUE(content) << content.error().to_string();
  EXPECT_EQ(*content, "hello\n");
}

TEST(ReadRegularFile, RefusesASymlinkEvenToARegularFile) {
  TempDir dir;
  const auto target = dir.write("real", "hello\n");
  const auto link = dir / "link";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  auto content = util::read_regular_file(link, "source file", 1024);
  ASSERT_FALSE(content);
  EXPECT_EQ(content.error().code, ErrorCode::validation);
  EXPECT_TRUE(contains(content.error().message, "symbolic link")) << content.error().message;
  EXPECT_TRUE(contains(content.error().message, link)) << content.error().message;
  EXPECT_TRUE(contains(content.error().hint, "readlink -f")) << content.error().hint;
}

TEST(ReadRegularFile, RefusesAFifoWithoutHanging) {
  TempDir dir;
  const auto fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const HangGuard guard;
  auto content = util::read_regular_file(fifo, "source file", 1024);
  ASSERT_FALSE(content);
  EXPECT_EQ(content.error().code, ErrorCode::validation);
  EXPECT_TRUE(contains(content.error().message, "is a FIFO, not a regular file")) << content.error().message;
}

TEST(ReadRegularFile, RefusesDevZero) {
  const HangGuard guard;
  auto content = util::read_regular_file("/dev/zero", "source file", util::k_max_source_file_bytes);
  ASSERT_FALSE(content);
  EXPECT_TRUE(contains(content.error().message, "/dev/zero is a character device")) << content.error().message;
}

TEST(ReadRegularFile, RefusesADirectory) {
  TempDir dir;
  auto content = util::read_regular_file(dir.path(), "source file", 1024);
  ASSERT_FALSE(content);
  EXPECT_TRUE(contains(content.error().message, "is a directory")) << content.error().message;
}

TEST(ReadRegularFile, AMissingFileIsNotFound) {
  TempDir dir;
  auto content = util::read_regular_file(dir / "missing", "source file", 1024);
  ASSERT_FALSE(content);
  EXPECT_EQ(content.error().code, ErrorCode::not_found);
}

TEST(ReadRegularFile, TheLimitIsOneMebibyte) {
  EXPECT_EQ(util::k_max_source_file_bytes, 1024u * 1024u);
  TempDir dir;
  const auto at_limit = dir.write("at-limit", std::string(util::k_max_source_file_bytes, 'x'));
  EXPECT_TRUE(util::read_regular_file(at_limit, "source file", util::k_max_source_file_bytes));
  const auto over = dir.write("two-mib", std::string(2 * util::k_max_source_file_bytes, 'x'));
  auto content = util::read_regular_file(over, "source file", util::k_max_source_file_bytes);
  ASSERT_FALSE(content);
  EXPECT_EQ(content.error().code, ErrorCode::validation);
  EXPECT_TRUE(contains(content.error().message, "larger than the limit of 1 MiB")) << content.error().message;
}

TEST(ReadRegularFile, TheLimitHoldsForFilesThatReportSizeZero) {
  // /proc files report size 0 to stat: the cap is enforced while reading too.
  auto content = util::read_regular_file("/proc/self/maps", "source file", 16);
  ASSERT_FALSE(content);
  EXPECT_TRUE(contains(content.error().message, "larger than the limit of 16 bytes")) << content.error().message;
}

// --- OpenPGP public keys ---------------------------------------------------------------

TEST(OpenPgp, AcceptsARealArmoredAndBinaryPublicKey) {
  // Made with gpg --quick-gen-key (ed25519) and exported with and without --armor.
  auto armored = util::check_openpgp_public_key(armored_key());
  ASSERT_TRUE(armored) << armored.error().message;
  EXPECT_EQ(*armored, util::OpenPgpEncoding::armored);
  auto binary = util::check_openpgp_public_key(binary_key());
  ASSERT_TRUE(binary) << binary.error().message;
  EXPECT_EQ(*binary, util::OpenPgpEncoding::binary);
}

TEST(OpenPgp, AcceptsEveryPublicKeyPacketHeaderForm) {
  const auto packet = [](std::string header, std::size_t body) {
    return header + std::string(1, '\x04') + std::string(body - 1, 'k');
  };
  EXPECT_TRUE(util::check_openpgp_public_key(packet("\x98\x33", 0x33)));                                  // old, 1-byte length
  EXPECT_TRUE(util::check_openpgp_public_key(packet(std::string("\x99\x01\x0d", 3), 0x10d)));              // old, 2-byte
  EXPECT_TRUE(util::check_openpgp_public_key(packet(std::string("\x9a\x00\x00\x01\x0d", 5), 0x10d)));      // old, 4-byte
  EXPECT_TRUE(util::check_openpgp_public_key(packet("\xc6\x33", 0x33)));                                  // new, 1-octet
  EXPECT_TRUE(util::check_openpgp_public_key(packet("\xc6\xc0\x10", 192 + 0x10)));                        // new, 2-octet
  EXPECT_TRUE(util::check_openpgp_public_key(packet(std::string("\xc6\xff\x00\x00\x01\x0d", 6), 0x10d)));  // new, 5-octet
}

TEST(OpenPgp, RefusesSecretKeysArmoredOrBinary) {
  const std::string armored = "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlFgEZ\n-----END PGP PRIVATE KEY BLOCK-----\n";
  auto refused = util::check_openpgp_public_key(armored);
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "secret (private) key")) << refused.error().message;
  std::string binary = binary_key();
  binary[0] = '\x94';  // the same packet with tag 5, secret key (as `gpg --export-secret-keys` starts)
  refused = util::check_openpgp_public_key(binary);
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "secret (private) key")) << refused.error().message;
  refused = util::check_openpgp_public_key(std::string("\xc5\x10\x04", 3) + std::string(15, 'k'));
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "secret (private) key")) << refused.error().message;
}

TEST(OpenPgp, RefusesWhatIsNotAPublicKey) {
  for (const std::string& bad : {std::string{}, std::string("PATH=/usr/bin\0HOME=/root\0", 25),
                                std::string("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n"),
                                std::string("-----BEGIN PGP SIGNATURE-----\nabc\n-----END PGP SIGNATURE-----\n"),
                                std::string("\x89PNG\r\n\x1a\n", 8), std::string(64, '\0')}) {
    auto refused = util::check_openpgp_public_key(bad);
    EXPECT_FALSE(refused) << "accepted " << bad.size() << " bytes";
    if (!refused) continue;
    EXPECT_EQ(refused.error().code, ErrorCode::validation);
    EXPECT_FALSE(contains(refused.error().message, "PATH=")) << refused.error().message;
  }
}

TEST(OpenPgp, RefusesABrokenArmorOrPacket) {
  const auto key = armored_key();
  auto cut = util::check_openpgp_public_key(key.substr(0, key.size() / 2));
  ASSERT_FALSE(cut);
  EXPECT_TRUE(contains(cut.error().message, "END PGP PUBLIC KEY BLOCK")) << cut.error().message;
  auto binary_inside = util::check_openpgp_public_key(key + std::string("\x01\x02", 2));
  ASSERT_FALSE(binary_inside);
  EXPECT_TRUE(contains(binary_inside.error().message, "not text")) << binary_inside.error().message;

  const auto packet = binary_key();
  auto short_packet = util::check_openpgp_public_key(packet.substr(0, 20));
  ASSERT_FALSE(short_packet);
  EXPECT_TRUE(contains(short_packet.error().message, "cut short")) << short_packet.error().message;
  std::string bad_version = packet;
  bad_version[2] = '\x63';  // after the 2-byte header of 0x98 LL: the version byte
  auto unknown = util::check_openpgp_public_key(bad_version);
  ASSERT_FALSE(unknown);
  EXPECT_TRUE(contains(unknown.error().message, "unknown key version")) << unknown.error().message;
  // Old format with indeterminate length (0x9b) never frames a key.
  EXPECT_FALSE(util::check_openpgp_public_key(std::string("\x9b\x04", 2) + std::string(40, 'k')));
}

// --- source files of file resources ----------------------------------------------------

FileResource key_resource(const std::string& source, std::string destination = "/etc/apt/keyrings/gpuctl-cuda.asc") {
  FileResource file;
  file.path = std::move(destination);
  file.source = source;
  return file;
}

Inventory with_key_file(const std::string& key_file) {
  Inventory inventory;
  inventory.cluster.nvidia.repository.key_file = key_file;
  return inventory;
}

TEST(SourceFile, AcceptsTheRepositoryKeyInTheEncodingItsDestinationNeeds) {
  const auto asc = k_data + "/repository-key.asc";
  auto armored = read_source_file(key_resource(asc), with_key_file(asc));
  ASSERT_TRUE(armored) << armored.error().to_string();
  EXPECT_EQ(*armored, armored_key());
  const auto gpg = k_data + "/repository-key.gpg";
  auto binary = read_source_file(key_resource(gpg, "/etc/apt/keyrings/gpuctl-cuda.gpg"), with_key_file(gpg));
  ASSERT_TRUE(binary) << binary.error().to_string();
  EXPECT_EQ(*binary, binary_key());
}

TEST(SourceFile, RefusesAKeyAptWouldReadInTheOtherEncoding) {
  const auto gpg = k_data + "/repository-key.gpg";
  auto refused = read_source_file(key_resource(gpg, "/etc/apt/keyrings/gpuctl-cuda.asc"), with_key_file(gpg));
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "binary OpenPGP key")) << refused.error().message;
  EXPECT_TRUE(contains(refused.error().hint, ".gpg")) << refused.error().hint;
  const auto asc = k_data + "/repository-key.asc";
  refused = read_source_file(key_resource(asc, "/etc/apt/keyrings/gpuctl-cuda.gpg"), with_key_file(asc));
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().hint, "gpg --dearmor")) << refused.error().hint;
}

TEST(SourceFile, ProcSelfEnvironIsNotARepositoryKeyAndIsNeverQuoted) {
  const std::string environ_path = "/proc/self/environ";
  const auto environ_text = read_binary(environ_path);
  auto refused = read_source_file(key_resource(environ_path), with_key_file(environ_path));
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::validation);
  EXPECT_EQ(refused.error().message,
            "cluster.nvidia.repository.key_file /proc/self/environ is not an OpenPGP public key (neither armored nor "
            "binary)");
  EXPECT_TRUE(contains(refused.error().hint, "gpg --armor --export")) << refused.error().hint;
  // Not a byte of the environment in the error.
  for (std::size_t start = 0; start < environ_text.size();) {
    const auto end = std::min(environ_text.find('\0', start), environ_text.size());
    const auto entry = environ_text.substr(start, end - start);
    if (entry.size() > 8) {
      EXPECT_FALSE(contains(refused.error().to_string(), entry)) << "leaked " << entry;
    }
    start = end + 1;
  }
}

TEST(SourceFile, RefusesAKeyFileThatIsDevZeroAFifoOrASymlink) {
  const HangGuard guard;
  auto zero = read_source_file(key_resource("/dev/zero"), with_key_file("/dev/zero"));
  ASSERT_FALSE(zero);
  EXPECT_TRUE(contains(zero.error().message, "cluster.nvidia.repository.key_file /dev/zero is a character device"))
      << zero.error().message;
  TempDir dir;
  const auto fifo = dir / "key.asc";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(read_source_file(key_resource(fifo), with_key_file(fifo)));
  const auto link = dir / "link.asc";
  const auto asc = k_data + "/repository-key.asc";
  ASSERT_EQ(::symlink(asc.c_str(), link.c_str()), 0);
  auto linked = read_source_file(key_resource(link), with_key_file(link));
  ASSERT_FALSE(linked);
  EXPECT_TRUE(contains(linked.error().message, "symbolic link")) << linked.error().message;
}

TEST(SourceFile, OtherSourceFilesNeedNotBeKeysButAreStillBounded) {
  TempDir dir;
  const auto ca = dir.write("ca.pem", "-----BEGIN CERTIFICATE-----\n...\n", 0644);
  auto read = read_source_file(key_resource(ca, "/usr/local/share/ca-certificates/site.crt"), with_key_file(""));
  ASSERT_TRUE(read) << read.error().to_string();
  const auto big = dir.write("big", std::string(2 * util::k_max_source_file_bytes, 'x'));
  auto refused = read_source_file(key_resource(big, "/x"), with_key_file(""));
  ASSERT_FALSE(refused);
  EXPECT_TRUE(contains(refused.error().message, "source file")) << refused.error().message;
}

}  // namespace
}  // namespace gpuctl

namespace gpuctl {
namespace {

// gpuctl's own inputs (issue #37): one reader, read_local_file, for the inventory, the
// configuration, saved plans, playbooks and templates. A FIFO or a device is refused without
// blocking, a link is followed only to a world-readable file, and the inventory loader (which
// quotes lines in its diagnostics) never reads a private file through a link.
TEST(ReadLocalFile, RefusesFifosDevicesAndLinksToPrivateFiles) {
  const HangGuard guard;
  testing::TempDir dir;
  const auto fifo = dir / "plan.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const auto from_fifo = util::read_local_file(fifo, "saved plan");
  ASSERT_FALSE(from_fifo);
  EXPECT_NE(from_fifo.error().message.find("is a FIFO, not a regular file"), std::string::npos) << from_fifo.error().message;
  const auto zero = util::read_local_file("/dev/zero", "saved plan");
  ASSERT_FALSE(zero) << "a device is never read";
  const auto secret = dir.write("shadow", "root:$6$privatehash:19000:0:99999:7:::\n", 0600);
  const auto link = dir / "cluster.yaml";
  ASSERT_EQ(::symlink(secret.c_str(), link.c_str()), 0);
  const auto through_link = util::read_local_file(link, "inventory");
  ASSERT_FALSE(through_link);
  EXPECT_NE(through_link.error().message.find("not every user may read"), std::string::npos) << through_link.error().message;
  const auto loaded = load_inventory(link);
  ASSERT_FALSE(loaded.ok());
  for (const auto& d : loaded.diagnostics) EXPECT_EQ(d.to_string().find("privatehash"), std::string::npos) << d.to_string();
  // A link to a world-readable file is followed (configuration management links /etc files).
  const auto shared = dir.write("shared.yaml", "cluster: {name: c}\nhosts: {a1: }\n", 0644);
  const auto shared_link = dir / "linked.yaml";
  ASSERT_EQ(::symlink(shared.c_str(), shared_link.c_str()), 0);
  EXPECT_TRUE(load_inventory(shared_link).ok());
  // And every input has a cap.
  const auto big = dir.write("big", std::string(2048, 'x'), 0644);
  EXPECT_FALSE(util::read_local_file(big, "template", 1024));
}

}  // namespace
}  // namespace gpuctl

namespace gpuctl {
namespace {

// The shipped playbooks beside the binary (<prefix>/share/gpuctl) are taken only from a tree
// nobody else may write (issue #37): a copy of gpuctl in someone else's tree must not run
// their playbooks.
TEST(DataDir, BesideTheBinaryOnlyWhereNoOneElseMayWrite) {
  testing::TempDir dir;
  const auto prefix = dir / "prefix";
  const auto playbooks = prefix + "/share/gpuctl/playbooks";
  std::filesystem::create_directories(playbooks);
  for (const auto& path : {prefix, prefix + "/share", prefix + "/share/gpuctl", playbooks}) ::chmod(path.c_str(), 0755);
  EXPECT_TRUE(util::trusted_tree(playbooks, prefix));
  ::chmod((prefix + "/share").c_str(), 0777);
  EXPECT_FALSE(util::trusted_tree(playbooks, prefix)) << "a world-writable directory on the way";
  ::chmod((prefix + "/share").c_str(), 0755);
  EXPECT_FALSE(util::trusted_tree(prefix, playbooks)) << "top not above dir";
  if (::geteuid() != 0) GTEST_SKIP() << "giving a directory to another user needs root";
  ASSERT_EQ(::chown(playbooks.c_str(), 65534, 65534), 0);
  EXPECT_FALSE(util::trusted_tree(playbooks, prefix)) << "another user's directory";
}

}  // namespace
}  // namespace gpuctl
