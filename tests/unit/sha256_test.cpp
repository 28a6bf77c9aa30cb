#include <gpuctl/util/sha256.hpp>

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

using gpuctl::util::Sha256;
using gpuctl::util::sha256_hex;

// Known-answer vectors: FIPS 180-4's examples (NIST CSRC, "SHA256.pdf" and "SHA2_Additional.pdf").
namespace {
constexpr const char* k_empty = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr const char* k_abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr const char* k_448_bit_message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
constexpr const char* k_448_bit_digest = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
constexpr const char* k_896_bit_message =
    "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
constexpr const char* k_896_bit_digest = "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1";
constexpr const char* k_million_a = "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0";
}  // namespace

TEST(Sha256, EmptyInput) { EXPECT_EQ(sha256_hex(""), k_empty); }

TEST(Sha256, EmptyInputThroughTheHasher) {
  Sha256 hasher;
  hasher.update("");
  EXPECT_EQ(hasher.hex_digest(), k_empty);
}

TEST(Sha256, Abc) { EXPECT_EQ(sha256_hex("abc"), k_abc); }

TEST(Sha256, TwoBlockMessage) { EXPECT_EQ(sha256_hex(k_448_bit_message), k_448_bit_digest); }

TEST(Sha256, EightHundredNinetySixBitMessage) { EXPECT_EQ(sha256_hex(k_896_bit_message), k_896_bit_digest); }

TEST(Sha256, OneMillionAsOneShot) { EXPECT_EQ(sha256_hex(std::string(1'000'000, 'a')), k_million_a); }

TEST(Sha256, OneMillionAsFedInPiecesMatchesOneShot) {
  Sha256 hasher;
  const std::string chunk(1000, 'a');
  for (int i = 0; i < 1000; ++i) hasher.update(chunk);
  EXPECT_EQ(hasher.hex_digest(), k_million_a);
}

TEST(Sha256, AnySplitOfTheInputGivesTheSameDigest) {
  const std::string message = k_896_bit_message;
  for (std::size_t cut = 0; cut <= message.size(); ++cut) {
    Sha256 hasher;
    hasher.update(std::string_view(message).substr(0, cut));
    hasher.update(std::string_view(message).substr(cut));
    EXPECT_EQ(hasher.hex_digest(), k_896_bit_digest) << "split at " << cut;
  }
  Sha256 bytewise;
  for (const char c : message) bytewise.update(std::string_view(&c, 1));
  EXPECT_EQ(bytewise.hex_digest(), k_896_bit_digest);
}

TEST(Sha256, PaddingBoundaryLengths) {
  // 55 and 56 bytes straddle the length field; 64 fills a block exactly.
  EXPECT_EQ(sha256_hex(std::string(55, 'a')), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256_hex(std::string(56, 'a')), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(sha256_hex(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}

TEST(Sha256, BytesAreHashedAsIsIncludingNulAndHighBytes) {
  const std::string binary("a\0\xff", 3);
  EXPECT_NE(sha256_hex(binary), sha256_hex("a"));
  Sha256 hasher;
  hasher.update(binary.substr(0, 2));
  hasher.update(binary.substr(2));
  EXPECT_EQ(hasher.hex_digest(), sha256_hex(binary));
}

TEST(Sha256, DigestIsTheRawFormOfTheHexDigest) {
  Sha256 hasher;
  hasher.update("abc");
  const auto raw = hasher.digest();
  EXPECT_EQ(raw[0], 0xba);
  EXPECT_EQ(raw[31], 0xad);
  // Asking again returns the same digest; updating a finished hash is refused.
  EXPECT_EQ(hasher.hex_digest(), k_abc);
  EXPECT_THROW(hasher.update("more"), std::logic_error);
}

TEST(Sha256, ACopyGoesOnIndependently) {
  Sha256 prefix;
  prefix.update("ab");
  Sha256 copy = prefix;
  copy.update("c");
  EXPECT_EQ(copy.hex_digest(), k_abc);
  prefix.update("c");
  EXPECT_EQ(prefix.hex_digest(), k_abc);

  Sha256 assigned;
  assigned.update("something else");
  Sha256 source;
  source.update("a");
  assigned = source;
  assigned.update("bc");
  EXPECT_EQ(assigned.hex_digest(), k_abc);

  Sha256 moved = std::move(source);
  moved.update("bc");
  EXPECT_EQ(moved.hex_digest(), k_abc);
}
