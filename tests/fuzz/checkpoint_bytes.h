// SPDX-License-Identifier: Apache-2.0
// For the fuzz targets that change a saved checkpoint's state: makes its
// checksum good again (pmvp/checkpoint.h: the last 8 bytes, little-endian,
// are the FNV-1a of every byte before them), so a restore judges the state
// itself rather than refusing a corrupt file.
#pragma once

#include <cstdint>
#include <vector>

inline void make_checksum_good(std::vector<uint8_t> &ck)
{
    const size_t trailer = 8;
    uint64_t h = UINT64_C(0xCBF29CE484222325);
    for (size_t i = 0; i + trailer < ck.size(); i++)
        h = (h ^ ck[i]) * UINT64_C(0x100000001B3);
    for (unsigned i = 0; i < trailer; i++)
        ck[ck.size() - trailer + i] = (uint8_t)(h >> 8 * i);
}
