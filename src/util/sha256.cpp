#include <gpuctl/util/sha256.hpp>

#include <openssl/err.h>
#include <openssl/evp.h>

#include <algorithm>
#include <stdexcept>
#include <string>

namespace gpuctl::util {
namespace {

// Throws for a failed EVP call, with the reasons OpenSSL queued for it (the queue is per
// thread; reading it empties it, so a later failure is not blamed on this one).
[[noreturn]] void throw_openssl_error(const char* call) {
  std::string reasons;
  while (const unsigned long code = ERR_get_error()) {
    std::array<char, 256> text{};
    ERR_error_string_n(code, text.data(), text.size());
    reasons += reasons.empty() ? ": " : "; ";
    reasons += text.data();
  }
  throw std::runtime_error(std::string("SHA-256: OpenSSL ") + call + " failed" +
                           (reasons.empty() ? std::string(" (no reason given)") : reasons));
}

}  // namespace

void Sha256::ContextDeleter::operator()(evp_md_ctx_st* context) const noexcept { EVP_MD_CTX_free(context); }

Sha256::Sha256() : m_context(EVP_MD_CTX_new()) {
  if (!m_context) throw_openssl_error("EVP_MD_CTX_new");
  if (EVP_DigestInit_ex(m_context.get(), EVP_sha256(), nullptr) != 1) throw_openssl_error("EVP_DigestInit_ex");
}

Sha256::Sha256(const Sha256& other)
    : m_context(EVP_MD_CTX_new()), m_digest(other.m_digest), m_finished(other.m_finished) {
  if (!m_context) throw_openssl_error("EVP_MD_CTX_new");
  if (!other.m_context) throw std::logic_error("Sha256: copy of a moved-from hasher");
  if (EVP_MD_CTX_copy_ex(m_context.get(), other.m_context.get()) != 1) throw_openssl_error("EVP_MD_CTX_copy_ex");
}

Sha256& Sha256::operator=(const Sha256& other) {
  if (this != &other) *this = Sha256(other);
  return *this;
}

Sha256::~Sha256() = default;

void Sha256::update(std::string_view bytes) {
  if (!m_context) throw std::logic_error("Sha256::update on a moved-from hasher");
  if (m_finished) throw std::logic_error("Sha256::update after digest()");
  // EVP_DigestUpdate takes any length; an empty update is a valid no-op.
  if (EVP_DigestUpdate(m_context.get(), bytes.data(), bytes.size()) != 1) throw_openssl_error("EVP_DigestUpdate");
}

std::array<std::uint8_t, 32> Sha256::digest() {
  if (m_finished) return m_digest;
  if (!m_context) throw std::logic_error("Sha256::digest on a moved-from hasher");
  std::array<unsigned char, EVP_MAX_MD_SIZE> out{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(m_context.get(), out.data(), &length) != 1) throw_openssl_error("EVP_DigestFinal_ex");
  if (length != m_digest.size())
    throw std::runtime_error("SHA-256: OpenSSL returned a digest of " + std::to_string(length) + " bytes, not 32");
  std::copy_n(out.begin(), m_digest.size(), m_digest.begin());
  m_finished = true;
  return m_digest;
}

std::string Sha256::hex_digest() {
  static constexpr char k_hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (auto byte : digest()) {
    out += k_hex[byte >> 4];
    out += k_hex[byte & 0xf];
  }
  return out;
}

std::string sha256_hex(std::string_view bytes) {
  Sha256 hasher;
  hasher.update(bytes);
  return hasher.hex_digest();
}

}  // namespace gpuctl::util
