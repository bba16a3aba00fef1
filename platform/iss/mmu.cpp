// SPDX-License-Identifier: Apache-2.0
//
// The guest's stage 1 translation as the platform reads it, and an access
// where nothing is.

#include "aarch64_iss.h"

namespace pmvp::soc {

// The guest's EL1&0 stage 1 walk of `va` (VMSAv8-64, D8.2: 4, 16 or 64 KiB
// granules, TTBR0 or TTBR1 by bit 55, the top byte ignored as TCR_EL1.TBIn
// says). The engine translates the guest's accesses itself; the platform
// walks to find the code of a block, to read an instruction, and to tell
// which fault an abort the engine raised is.
Stage1 walk_stage1(uc_engine *uc, uint64_t va)
{
    uc_arm64_cp_reg sctlr{ 1, 0, 3, 0, 0, 0 }, tcr{ 2, 0, 3, 0, 2, 0 };
    uc_reg_read(uc, UC_ARM64_REG_CP_REG, &sctlr);
    if (!(sctlr.val & 1))
        return { Stage1::kOff, 0, va, 0 };
    uc_reg_read(uc, UC_ARM64_REG_CP_REG, &tcr);
    const bool upper = (va >> 55) & 1;
    const unsigned tsz = (unsigned)(tcr.val >> (upper ? 16 : 0)) & 0x3F;
    const unsigned tg = (unsigned)(tcr.val >> (upper ? 30 : 14)) & 3;
    const bool tbi = (tcr.val >> (upper ? 38 : 37)) & 1;
    // TG0: 0 4K, 1 64K, 2 16K; TG1: 1 16K, 2 4K, 3 64K.
    unsigned grain = upper ? (tg == 1 ? 14 : tg == 3 ? 16 : 12) : (tg == 1 ? 16 : tg == 2 ? 14 : 12);
    const unsigned inputsize = 64 - tsz, stride = grain - 3;
    // The bits above the input size (and below the top byte, with TBI) are
    // all bit 55's, or the address is out of range: a level 0 translation
    // fault, as is a walk that TCR_EL1.EPDn disables.
    const unsigned top = tbi ? 56 : 64;
    const uint64_t high = top > inputsize ? (va >> inputsize) & ((1ull << (top - inputsize)) - 1) : 0;
    const uint64_t all = top > inputsize ? (1ull << (top - inputsize)) - 1 : 0;
    if (high != (upper ? all : 0) || ((tcr.val >> (upper ? 23 : 7)) & 1))
        return { Stage1::kTranslation, 0, 0, 0 };
    uint64_t ttbr = 0;
    uc_reg_read(uc, upper ? UC_ARM64_REG_TTBR1_EL1 : UC_ARM64_REG_TTBR0_EL1, &ttbr);
    uint64_t table = ttbr & 0x0000FFFFFFFFFFFEull & ~((1ull << 12) - 1);
    const int start = 4 - (int)((inputsize - 4) / stride);  // the walk's first level (D8.2.6)
    for (int level = start; level <= 3; level++) {
        const unsigned shift = grain + (unsigned)(3 - level) * stride;
        const unsigned bits = level == start ? inputsize - shift : stride;
        const uint64_t index = (va >> shift) & ((1ull << bits) - 1);
        uint64_t d = 0;
        if (uc_mem_read(uc, table + index * 8, &d, 8) != UC_ERR_OK)
            return { Stage1::kExternal, level, 0, 0 };
        if (!(d & 1) || (level == 3 && !(d & 2)))
            return { Stage1::kTranslation, level, 0, d };
        const uint64_t out = d & 0x0000FFFFFFFFFFFFull & ~((1ull << grain) - 1);
        if (level == 3 || !(d & 2)) {  // a page, or a block
            const uint64_t pa =
                (level == 3 ? out : d & 0x0000FFFFFFFFFFFFull & ~((1ull << shift) - 1)) | (va & ((1ull << shift) - 1));
            return { (d >> 10) & 1 ? Stage1::kMapped : Stage1::kAccessFlag, level, pa, d };
        }
        table = out;
    }
    return { Stage1::kTranslation, 3, 0, 0 };
}

uint64_t translate(uc_engine *uc, uint64_t va)
{
    const Stage1 w = walk_stage1(uc, va);
    return w.fault == Stage1::kMapped ? w.pa : UINT64_MAX;
}

namespace {

// n bytes at virtual address va, a page at a time through the guest's
// tables; false where they do not map one.
bool access_virtual(uc_engine *uc, uint64_t va, uint8_t *bytes, size_t n, bool write)
{
    while (n) {
        const size_t part = std::min<size_t>(n, 0x1000 - (va & 0xFFF));  // to the end of its (smallest) page
        const Stage1 w = walk_stage1(uc, va);
        if ((w.fault != Stage1::kOff && w.fault != Stage1::kMapped) ||
            (write ? uc_mem_write(uc, w.pa, bytes, part) : uc_mem_read(uc, w.pa, bytes, part)) != UC_ERR_OK)
            return false;
        va += part;
        bytes += part;
        n -= part;
    }
    return true;
}

}  // namespace

bool read_virtual(uc_engine *uc, uint64_t va, void *to, size_t n)
{
    return access_virtual(uc, va, static_cast<uint8_t *>(to), n, false);
}

bool write_virtual(uc_engine *uc, uint64_t va, const void *from, size_t n)
{
    return access_virtual(uc, va, static_cast<uint8_t *>(const_cast<void *>(from)), n, true);
}

bool on_unmapped(uc_engine *, uc_mem_type, uint64_t address, int, int64_t, void *user)
{
    static_cast<Aarch64Iss::Thread *>(user)->fault_address = address;
    return false;  // the engine stops the PE (docs/FIRMWARE.md)
}

}  // namespace pmvp::soc
