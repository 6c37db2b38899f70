// canopy/workloads/uts/sha1.hpp — SHA-1 (FIPS 180-4) usable in device code: no host library, no
// tables, CANOPY_HOST_DEVICE functions on plain bytes. UTS hashes 20- and 24-byte messages, which fit
// one 64-byte block (sha1_short); sha1() handles any length for the standard test vectors.
#pragma once

#include <cstddef>
#include <cstdint>

#include "canopy/platform/config.hpp"

namespace canopy::workloads::uts {

namespace detail {
CANOPY_HOST_DEVICE constexpr std::uint32_t rotl(std::uint32_t x, unsigned n) {
    return (x << n) | (x >> (32u - n));
}

/// The round functions of FIPS 180-4 §4.1.1 (Ch, Parity, Maj, Parity by quarter).
CANOPY_HOST_DEVICE constexpr std::uint32_t sha1_ch(std::uint32_t b, std::uint32_t c, std::uint32_t d) {
    return d ^ (b & (c ^ d)); // (b & c) | (~b & d), one operation shorter
}
CANOPY_HOST_DEVICE constexpr std::uint32_t sha1_parity(std::uint32_t b, std::uint32_t c, std::uint32_t d) {
    return b ^ c ^ d;
}
CANOPY_HOST_DEVICE constexpr std::uint32_t sha1_maj(std::uint32_t b, std::uint32_t c, std::uint32_t d) {
    return (b & c) | (d & (b | c)); // (b & c) | (b & d) | (c & d)
}

/// Word t >= 16 of the message schedule, kept in a 16-word ring.
CANOPY_HOST_DEVICE inline std::uint32_t sha1_schedule(std::uint32_t w[16], unsigned t) {
    const std::uint32_t x = w[(t + 13) & 15] ^ w[(t + 8) & 15] ^ w[(t + 2) & 15] ^ w[t & 15];
    w[t & 15] = rotl(x, 1);
    return w[t & 15];
}

/// One compression of a 64-byte block into h[5]. Written as four 20-round phases, fully unrolled
/// with the working variables renamed instead of shifted (the shape of Gladman's brg_sha1, which
/// mini-uts uses): a single 80-round loop with the phase chosen inside it and a..e moved every round
/// ran at half mini-uts' speed, and SHA-1 is UTS's whole work. Same arithmetic, same digest.
CANOPY_HOST_DEVICE inline void sha1_compress(std::uint32_t h[5], const std::uint8_t block[64]) {
    std::uint32_t w[16];
    for (unsigned i = 0; i < 16; ++i) {
        w[i] = (std::uint32_t(block[4 * i]) << 24) | (std::uint32_t(block[4 * i + 1]) << 16) |
               (std::uint32_t(block[4 * i + 2]) << 8) | std::uint32_t(block[4 * i + 3]);
    }
    std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
    // One round, with the roles renamed by the caller: e += rotl(a,5) + f(b,c,d) + k + w; b = rotl(b,30).
#define CANOPY_SHA1_ROUND(f, k, a, b, c, d, e, wt)                                                           \
    do {                                                                                                     \
        e += rotl(a, 5) + f(b, c, d) + (k) + (wt);                                                           \
        b = rotl(b, 30);                                                                                     \
    } while (0)
#define CANOPY_SHA1_FIVE(f, k, t, word)                                                                      \
    do {                                                                                                     \
        CANOPY_SHA1_ROUND(f, k, a, b, c, d, e, word(t));                                                     \
        CANOPY_SHA1_ROUND(f, k, e, a, b, c, d, word(t + 1));                                                 \
        CANOPY_SHA1_ROUND(f, k, d, e, a, b, c, word(t + 2));                                                 \
        CANOPY_SHA1_ROUND(f, k, c, d, e, a, b, word(t + 3));                                                 \
        CANOPY_SHA1_ROUND(f, k, b, c, d, e, a, word(t + 4));                                                 \
    } while (0)
#define CANOPY_SHA1_LOADED(t) w[t]
#define CANOPY_SHA1_NEXT(t) sha1_schedule(w, t)
    CANOPY_SHA1_FIVE(sha1_ch, 0x5A827999u, 0, CANOPY_SHA1_LOADED);
    CANOPY_SHA1_FIVE(sha1_ch, 0x5A827999u, 5, CANOPY_SHA1_LOADED);
    CANOPY_SHA1_FIVE(sha1_ch, 0x5A827999u, 10, CANOPY_SHA1_LOADED);
    CANOPY_SHA1_ROUND(sha1_ch, 0x5A827999u, a, b, c, d, e, w[15]);
    CANOPY_SHA1_ROUND(sha1_ch, 0x5A827999u, e, a, b, c, d, sha1_schedule(w, 16));
    CANOPY_SHA1_ROUND(sha1_ch, 0x5A827999u, d, e, a, b, c, sha1_schedule(w, 17));
    CANOPY_SHA1_ROUND(sha1_ch, 0x5A827999u, c, d, e, a, b, sha1_schedule(w, 18));
    CANOPY_SHA1_ROUND(sha1_ch, 0x5A827999u, b, c, d, e, a, sha1_schedule(w, 19));
    CANOPY_SHA1_FIVE(sha1_parity, 0x6ED9EBA1u, 20, CANOPY_SHA1_NEXT);
    CANOPY_SHA1_FIVE(sha1_parity, 0x6ED9EBA1u, 25, CANOPY_SHA1_NEXT);
    CANOPY_SHA1_FIVE(sha1_parity, 0x6ED9EBA1u, 30, CANOPY_SHA1_NEXT);
    CANOPY_SHA1_FIVE(sha1_parity, 0x6ED9EBA1u, 35, CANOPY_SHA1_NEXT);
    CANOPY_SHA1_FIVE(sha1_maj, 0x8F1BBCDCu, 40, CANOPY_SHA1_NEXT);
    CANOPY_SHA1_FIVE(sha1_maj, 0x8F1BBCDCu, 45, CANOPY_SHA1_NEXT);
    CANOPY_SHA1_FIVE(sha1_maj, 0x8F1BBCDCu, 50, CANOPY_SHA1_NEXT);
    CANOPY_SHA1_FIVE(sha1_maj, 0x8F1BBCDCu, 55, CANOPY_SHA1_NEXT);
    CANOPY_SHA1_FIVE(sha1_parity, 0xCA62C1D6u, 60, CANOPY_SHA1_NEXT);
    CANOPY_SHA1_FIVE(sha1_parity, 0xCA62C1D6u, 65, CANOPY_SHA1_NEXT);
    CANOPY_SHA1_FIVE(sha1_parity, 0xCA62C1D6u, 70, CANOPY_SHA1_NEXT);
    CANOPY_SHA1_FIVE(sha1_parity, 0xCA62C1D6u, 75, CANOPY_SHA1_NEXT);
#undef CANOPY_SHA1_NEXT
#undef CANOPY_SHA1_LOADED
#undef CANOPY_SHA1_FIVE
#undef CANOPY_SHA1_ROUND
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

CANOPY_HOST_DEVICE inline void sha1_init(std::uint32_t h[5]) {
    h[0] = 0x67452301u;
    h[1] = 0xEFCDAB89u;
    h[2] = 0x98BADCFEu;
    h[3] = 0x10325476u;
    h[4] = 0xC3D2E1F0u;
}

CANOPY_HOST_DEVICE inline void sha1_output(const std::uint32_t h[5], std::uint8_t out[20]) {
    for (unsigned i = 0; i < 5; ++i) {
        out[4 * i] = std::uint8_t(h[i] >> 24);
        out[4 * i + 1] = std::uint8_t(h[i] >> 16);
        out[4 * i + 2] = std::uint8_t(h[i] >> 8);
        out[4 * i + 3] = std::uint8_t(h[i]);
    }
}
} // namespace detail

/// SHA-1 of a message of any length (big-endian digest bytes).
CANOPY_HOST_DEVICE inline void sha1(const std::uint8_t* msg, std::size_t len, std::uint8_t out[20]) {
    std::uint32_t h[5];
    detail::sha1_init(h);
    std::size_t off = 0;
    for (; off + 64 <= len; off += 64) {
        detail::sha1_compress(h, msg + off);
    }
    std::uint8_t block[64];
    std::size_t rest = len - off;
    for (std::size_t i = 0; i < rest; ++i) {
        block[i] = msg[off + i];
    }
    block[rest] = 0x80;
    for (std::size_t i = rest + 1; i < 64; ++i) {
        block[i] = 0;
    }
    if (rest >= 56) {
        detail::sha1_compress(h, block);
        for (unsigned i = 0; i < 64; ++i) {
            block[i] = 0;
        }
    }
    const std::uint64_t bits = std::uint64_t(len) * 8u;
    for (unsigned i = 0; i < 8; ++i) {
        block[56 + i] = std::uint8_t(bits >> (56 - 8 * i));
    }
    detail::sha1_compress(h, block);
    detail::sha1_output(h, out);
}

/// SHA-1 of a message of at most 55 bytes: exactly one compression (the UTS case).
CANOPY_HOST_DEVICE inline void sha1_short(const std::uint8_t* msg, unsigned len, std::uint8_t out[20]) {
    std::uint8_t block[64];
    for (unsigned i = 0; i < len; ++i) {
        block[i] = msg[i];
    }
    block[len] = 0x80;
    for (unsigned i = len + 1; i < 62; ++i) {
        block[i] = 0;
    }
    const unsigned bits = len * 8u;
    block[62] = std::uint8_t(bits >> 8);
    block[63] = std::uint8_t(bits);
    std::uint32_t h[5];
    detail::sha1_init(h);
    detail::sha1_compress(h, block);
    detail::sha1_output(h, out);
}

} // namespace canopy::workloads::uts
