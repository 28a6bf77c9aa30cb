// OpenPGP packet framing as RFC 4880 section 4.2 (and RFC 9580) defines it; only the first
// packet's header and version byte are read.
#include <gpuctl/util/openpgp.hpp>

#include <cstdint>
#include <optional>

namespace gpuctl::util {
namespace {

constexpr std::string_view k_armor_begin = "-----BEGIN PGP PUBLIC KEY BLOCK-----";
constexpr std::string_view k_armor_end = "-----END PGP PUBLIC KEY BLOCK-----";
constexpr std::string_view k_secret_armor = "-----BEGIN PGP PRIVATE KEY BLOCK-----";
constexpr std::string_view k_any_armor = "-----BEGIN PGP ";

constexpr int k_tag_secret_key = 5;
constexpr int k_tag_public_key = 6;

struct PacketHeader {
  int tag = 0;
  std::size_t header_bytes = 0;
  std::optional<std::size_t> body_bytes;  // none: indeterminate or partial length
};

std::optional<PacketHeader> read_packet_header(std::string_view data) {
  if (data.empty()) return std::nullopt;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(data[i]); };
  const auto first = byte(0);
  if ((first & 0x80) == 0) return std::nullopt;
  const auto big_endian = [&](std::size_t from, std::size_t count) -> std::optional<std::size_t> {
    if (data.size() < from + count) return std::nullopt;
    std::size_t value = 0;
    for (std::size_t i = 0; i < count; ++i) value = (value << 8) | byte(from + i);
    return value;
  };
  PacketHeader header;
  if ((first & 0x40) == 0) {  // old format: tag in bits 5-2, length type in bits 1-0
    header.tag = (first >> 2) & 0x0f;
    const std::size_t length_type = first & 0x03;
    if (length_type == 3) return header;  // indeterminate length
    const std::size_t count = std::size_t{1} << length_type;
    header.header_bytes = 1 + count;
    header.body_bytes = big_endian(1, count);
    return header;
  }
  header.tag = first & 0x3f;  // new format
  if (data.size() < 2) return header;
  const auto octet = byte(1);
  if (octet < 192) {
    header.header_bytes = 2;
    header.body_bytes = octet;
  } else if (octet < 224) {
    header.header_bytes = 3;
    if (data.size() >= 3) header.body_bytes = ((std::size_t{octet} - 192) << 8) + byte(2) + 192;
  } else if (octet == 255) {
    header.header_bytes = 6;
    header.body_bytes = big_endian(2, 4);
  }  // 224-254: a partial body length, which key packets never use
  return header;
}

Result<OpenPgpEncoding> check_armored(std::string_view content) {
  for (const char c : content) {
    const auto u = static_cast<unsigned char>(c);
    if (!(u == '\n' || u == '\r' || u == '\t' || (u >= 0x20 && u < 0x7f)))
      return fail(ErrorCode::validation, "has an armor header but holds bytes that are not text");
  }
  if (content.find(k_armor_end) == std::string_view::npos)
    return fail(ErrorCode::validation, "has no \"" + std::string(k_armor_end) + "\" line (cut short?)");
  return OpenPgpEncoding::armored;
}

}  // namespace

Result<OpenPgpEncoding> check_openpgp_public_key(std::string_view content) {
  if (content.empty()) return fail(ErrorCode::validation, "is empty");
  const auto text_start = content.find_first_not_of(" \t\r\n");
  const auto text = text_start == std::string_view::npos ? std::string_view{} : content.substr(text_start);
  if (text.starts_with(k_armor_begin)) return check_armored(content);
  if (text.starts_with(k_secret_armor)) return fail(ErrorCode::validation, "is an OpenPGP secret (private) key");
  if (text.starts_with(k_any_armor))
    return fail(ErrorCode::validation, "is an armored OpenPGP block, but not a public key block");

  const auto header = read_packet_header(content);
  if (!header) return fail(ErrorCode::validation, "is not an OpenPGP public key (neither armored nor binary)");
  if (header->tag == k_tag_secret_key) return fail(ErrorCode::validation, "is an OpenPGP secret (private) key");
  if (header->tag != k_tag_public_key)
    return fail(ErrorCode::validation, "is not an OpenPGP public key (neither armored nor binary)");
  if (!header->body_bytes || *header->body_bytes == 0 ||
      header->header_bytes + *header->body_bytes > content.size())
    return fail(ErrorCode::validation, "starts like a binary OpenPGP public key but its first packet is cut short");
  const auto version = static_cast<std::uint8_t>(content[header->header_bytes]);
  if (version < 2 || version > 6)
    return fail(ErrorCode::validation, "starts like a binary OpenPGP public key but has an unknown key version");
  return OpenPgpEncoding::binary;
}

}  // namespace gpuctl::util
