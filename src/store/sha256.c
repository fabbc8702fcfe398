/*
 * sha256.c - SHA-256 (FIPS 180-4) of a dump's bytes: the key that makes
 * adding the same dump twice one run.
 *
 * DATA LAYOUT
 *   The classic eight 32-bit working words and a 64-word message schedule
 *   per 64-byte block; the tail block is padded with 0x80, zeros and the
 *   bit length (big-endian), in one or two final blocks.
 *
 * SPEED
 *   A dump of a million events is some 50 MB, and the portable rounds hash
 *   it at about 170 MB/s, as long as the Inspector takes to read it.  On
 *   x86-64 processors with the SHA extensions (checked at run time with
 *   CPUID) the whole blocks go through the SHA-NI instructions instead,
 *   about ten times faster: the state lives in two registers, ABEF and
 *   CDGH, sha256rnds2 does two rounds, and sha256msg1/msg2 extend the
 *   message schedule four words at a time.
 *
 * INVARIANTS
 *   Pure and stateless: the input is read once, front to back, and never
 *   modified.  tests/store/test_store.c checks both paths against the FIPS
 *   180-2 examples and against each other on every length up to 300 bytes
 *   and on a large buffer.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define SHA_NI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

#include "store_internal.h"

static const uint32_t round_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1,
    0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
    0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
    0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
    0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
    0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t rotr(uint32_t x, unsigned n) {
  return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const uint8_t block[64]) {
  uint32_t w[64];
  for (int i = 0; i < 16; i++)
    w[i] = (uint32_t)block[4 * i] << 24 | (uint32_t)block[4 * i + 1] << 16 |
           (uint32_t)block[4 * i + 2] << 8 | (uint32_t)block[4 * i + 3];
  for (int i = 16; i < 64; i++) {
    uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6],
           k = h[7];
  for (int i = 0; i < 64; i++) {
    uint32_t t1 = k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
                  ((e & f) ^ (~e & g)) + round_k[i] + w[i];
    uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) +
                  ((a & b) ^ (a & c) ^ (b & c));
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a;
  h[1] += b;
  h[2] += c;
  h[3] += d;
  h[4] += e;
  h[5] += f;
  h[6] += g;
  h[7] += k;
}

#ifdef SHA_NI
/* Two rounds with W+K of group g's low (then high) half, as the SHA-NI
 * pattern does: the state registers swap roles each call. */
#define SHA_NI_TARGET __attribute__((target("sha,sse4.1,ssse3")))

SHA_NI_TARGET static void compress_ni(uint32_t h[8], const uint8_t *data,
                                      size_t blocks) {
  const __m128i swap =
      _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
  __m128i dcba = _mm_loadu_si128((const void *)&h[0]);
  __m128i hgfe = _mm_loadu_si128((const void *)&h[4]);
  __m128i cdab = _mm_shuffle_epi32(dcba, 0xB1);
  __m128i efgh = _mm_shuffle_epi32(hgfe, 0x1B);
  __m128i abef = _mm_alignr_epi8(cdab, efgh, 8);
  __m128i cdgh = _mm_blend_epi16(efgh, cdab, 0xF0);
  for (size_t b = 0; b < blocks; b++, data += 64) {
    __m128i abef0 = abef, cdgh0 = cdgh, w[4];
    for (int i = 0; i < 4; i++)
      w[i] = _mm_shuffle_epi8(_mm_loadu_si128((const void *)(data + 16 * i)),
                              swap);
    for (int g = 0; g < 16; g++) {
      __m128i wk = _mm_add_epi32(
          w[g & 3], _mm_loadu_si128((const void *)&round_k[4 * g]));
      cdgh = _mm_sha256rnds2_epu32(cdgh, abef, wk);
      abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(wk, 0x0E));
      if (g < 12) /* w[t..t+3] from w[t-16..t-1] */
        w[g & 3] = _mm_sha256msg2_epu32(
            _mm_add_epi32(_mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]),
                          _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4)),
            w[(g + 3) & 3]);
    }
    abef = _mm_add_epi32(abef, abef0);
    cdgh = _mm_add_epi32(cdgh, cdgh0);
  }
  __m128i feba = _mm_shuffle_epi32(abef, 0x1B);
  __m128i dchg = _mm_shuffle_epi32(cdgh, 0xB1);
  _mm_storeu_si128((void *)&h[0], _mm_blend_epi16(feba, dchg, 0xF0));
  _mm_storeu_si128((void *)&h[4], _mm_alignr_epi8(dchg, feba, 8));
}
#endif

#ifdef SHA_NI
/* CPUID: SHA (leaf 7, EBX bit 29), SSE4.1 (leaf 1, ECX bit 19) and SSSE3
 * (leaf 1, ECX bit 9). */
static int have_sha_ni(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 19)) || !(c & (1u << 9)))
    return 0;
  return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & (1u << 29));
}
#endif

/* The whole blocks of data, the fastest way this processor has. */
static void compress_blocks(uint32_t h[8], const uint8_t *data, size_t blocks,
                            int portable) {
#ifdef SHA_NI
  if (!portable && have_sha_ni()) {
    compress_ni(h, data, blocks);
    return;
  }
#endif
  (void)portable;
  for (size_t i = 0; i < blocks; i++) compress(h, data + 64 * i);
}

static void sha256_hex(const uint8_t *data, size_t len, char out[65],
                       int portable) {
  uint32_t h[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  size_t full = len / 64;
  compress_blocks(h, data, full, portable);
  uint8_t tail[128];
  size_t rest = len - full * 64;
  memset(tail, 0, sizeof tail);
  if (rest) memcpy(tail, data + full * 64, rest);
  tail[rest] = 0x80;
  size_t blocks = rest < 56 ? 1 : 2;
  uint64_t bits = (uint64_t)len * 8u;
  for (int i = 0; i < 8; i++)
    tail[blocks * 64 - 1 - i] = (uint8_t)(bits >> (8 * i));
  compress_blocks(h, tail, blocks, portable);
  for (int i = 0; i < 8; i++) snprintf(out + 8 * i, 9, "%08x", h[i]);
}

void store_sha256_hex(const uint8_t *data, size_t len, char out[65]) {
  sha256_hex(data, len, out, 0);
}

void store_sha256_hex_portable(const uint8_t *data, size_t len, char out[65]) {
  sha256_hex(data, len, out, 1);
}
