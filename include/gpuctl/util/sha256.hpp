#pragma once
// SHA-256 (FIPS 180-4), for digests of inventories and plans. Pure, no I/O. The hashing is
// OpenSSL's (EVP), which libssh already loads; this is gpuctl's interface to it.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

struct evp_md_ctx_st;  // OpenSSL's EVP_MD_CTX (openssl/types.h); only sha256.cpp includes OpenSSL

namespace gpuctl::util {

// Incremental hasher: update() any number of times, then hex_digest() (or digest()).
//
// A failing OpenSSL call (out of memory, or an OpenSSL configuration that offers no SHA-256)
// throws std::runtime_error with OpenSSL's reason: no digest can be made, and none of the
// callers can go on without one. The CLI and the executor report it as an internal error.
class Sha256 {
 public:
  Sha256();
  Sha256(const Sha256& other);  // the copy goes on from the same point independently
  Sha256& operator=(const Sha256& other);
  Sha256(Sha256&&) noexcept = default;
  Sha256& operator=(Sha256&&) noexcept = default;
  ~Sha256();

  void update(std::string_view bytes);
  // Finishes the hash and returns it; calling it again returns the same digest. update()
  // after it is a bug and throws std::logic_error.
  std::array<std::uint8_t, 32> digest();
  std::string hex_digest();

 private:
  struct ContextDeleter {
    void operator()(evp_md_ctx_st* context) const noexcept;
  };

  std::unique_ptr<evp_md_ctx_st, ContextDeleter> m_context;
  std::array<std::uint8_t, 32> m_digest{};
  bool m_finished = false;
};

// Lower-case hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace gpuctl::util
