// SPDX-License-Identifier: Apache-2.0
//
// The byte order and checksum of every checkpoint part written above the
// kernel (the modules' part, Timeline::save; a platform's own, such as
// pmvp-soc's): integers little-endian whatever the host, and a 64-bit
// FNV-1a checksum over a part's bytes, so a file moves between hosts and a
// damaged one is refused rather than half read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace pmvp::sc {

inline uint64_t fnv1a(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

inline void put_u64(std::vector<uint8_t> &out, uint64_t v)
{
    for (unsigned i = 0; i < 8; i++)
        out.push_back((uint8_t)(v >> (8 * i)));
}

// Reads the u64 at in[*at..] and moves *at past it; false, *at unchanged,
// if fewer than 8 bytes of `size` remain.
inline bool get_u64(const uint8_t *in, size_t size, size_t *at, uint64_t *v)
{
    if (size < 8 || *at > size - 8)
        return false;
    *v = 0;
    for (unsigned i = 0; i < 8; i++)
        *v |= (uint64_t)in[*at + i] << (8 * i);
    *at += 8;
    return true;
}

}  // namespace pmvp::sc
