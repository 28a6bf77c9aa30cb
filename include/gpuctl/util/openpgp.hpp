#pragma once
// Recognising an OpenPGP public key (what apt's `signed-by` keyrings hold) from its bytes, so
// that a file named as a repository key is one: not a private key, not /proc/self/environ.
// Pure; never quotes the content in its errors.

#include <gpuctl/core/error.hpp>

#include <string_view>

namespace gpuctl::util {

enum class OpenPgpEncoding { armored, binary };

// Accepts
//  - ASCII armor: text only (printable ASCII and line breaks), starting (after white space) with
//    "-----BEGIN PGP PUBLIC KEY BLOCK-----" and holding the matching END line;
//  - binary packets (a keyring, as `gpg --export` writes) whose first packet is a public-key
//    packet (tag 6: old-format 0x98/0x99/0x9a, new-format 0xC6) of version 2 to 6 with a
//    length that fits in the content.
// Errors (validation): the message says what the content is instead ("is an OpenPGP secret
// key", "is empty", "is not an OpenPGP public key"), for the caller to prefix with the file.
Result<OpenPgpEncoding> check_openpgp_public_key(std::string_view content);

}  // namespace gpuctl::util
