#pragma once
// SHA-256 (FIPS 180-4), for digests of inventories and plans. Pure, no I/O.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace gpuctl::util {

// Incremental hasher: update() any number of times, then hex_digest() once.
class Sha256 {
 public:
  Sha256();
  void update(std::string_view bytes);
  // Finishes the hash; the object must not be updated afterwards.
  std::array<std::uint8_t, 32> digest();
  std::string hex_digest();

 private:
  void compress_block(const std::uint8_t* block);

  std::array<std::uint32_t, 8> m_state;
  std::array<std::uint8_t, 64> m_buffer{};
  std::size_t m_buffered = 0;
  std::uint64_t m_total_bytes = 0;
};

// Lower-case hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace gpuctl::util
