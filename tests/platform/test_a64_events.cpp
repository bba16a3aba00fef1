// SPDX-License-Identifier: Apache-2.0
//
// The ISS's classes of A64 instructions (platform/a64/a64_events.h) and its
// classified blocks (iss_events.h). The words are the GNU assembler's
// encodings of the instructions named beside them.
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "a64_events.h"
#include "iss_events.h"

using namespace pmvp::soc;
using a64::bit;
using a64::Mask;

namespace {

constexpr Mask kExec = bit(a64::INST_RETIRED) | bit(a64::INST_SPEC) | bit(a64::OP_RETIRED) | bit(a64::OP_SPEC);
constexpr Mask kDp = kExec | bit(a64::DP_SPEC);
constexpr Mask kLoad = kExec | bit(a64::LD_RETIRED) | bit(a64::LD_SPEC) | bit(a64::LDST_SPEC) | bit(a64::MEM_ACCESS_RD);
constexpr Mask kStore =
    kExec | bit(a64::ST_RETIRED) | bit(a64::ST_SPEC) | bit(a64::LDST_SPEC) | bit(a64::MEM_ACCESS_WR);
constexpr Mask kBranch = kExec | bit(a64::BR_RETIRED) | bit(a64::PC_WRITE_SPEC);
constexpr Mask kImm = kBranch | bit(a64::BR_IMMED_RETIRED) | bit(a64::BR_IMMED_SPEC);
constexpr Mask kInd = kBranch | bit(a64::PC_WRITE_RETIRED) | bit(a64::BR_INDIRECT_SPEC);

struct Case {
    uint32_t word;
    const char *text;
    Mask events;
    bool conditional = false;
};

const Case kCases[] = {
    { 0xf9400023, "ldr x3, [x1]", kLoad },
    { 0xb8404c23, "ldr w3, [x1, #4]!", kLoad },
    { 0xb8804423, "ldrsw x3, [x1], #4", kLoad },
    { 0xf85f8023, "ldur x3, [x1, #-8]", kLoad },
    { 0xf8400823, "ldtr x3, [x1]", kLoad },
    { 0xf8627823, "ldr x3, [x1, x2, lsl #3]", kLoad },
    { 0x58000883, "ldr x3, label", kLoad },
    { 0x3dc00020, "ldr q0, [x1]", kLoad },
    { 0xfd400420, "ldr d0, [x1, #8]", kLoad },
    { 0xa9401424, "ldp x4, x5, [x1]", kLoad },
    { 0x69401424, "ldpsw x4, x5, [x1]", kLoad },
    { 0xa8401424, "ldnp x4, x5, [x1]", kLoad },
    { 0xc8dffc23, "ldar x3, [x1]", kLoad },
    { 0xc85ffc23, "ldaxr x3, [x1]", kLoad | bit(a64::LDREX_SPEC) },
    { 0x885f7c23, "ldxr w3, [x1]", kLoad | bit(a64::LDREX_SPEC) },
    { 0xc87f1023, "ldxp x3, x4, [x1]", kLoad | bit(a64::LDREX_SPEC) },
    { 0x4c407020, "ld1 {v0.16b}, [x1]", kLoad },
    { 0x0ddf9020, "ld1 {v0.s}[1], [x1], #4", kLoad },
    { 0xd9400023, "ldapur x3, [x1]", kLoad },
    { 0xf8bfc061, "ldapr x1, [x3]", kLoad },
    { 0xf9000023, "str x3, [x1]", kStore },
    { 0x39000423, "strb w3, [x1, #1]", kStore },
    { 0xf81f8023, "stur x3, [x1, #-8]", kStore },
    { 0x3d800020, "str q0, [x1]", kStore },
    { 0xa9011424, "stp x4, x5, [x1, #16]", kStore },
    { 0xc89ffc23, "stlr x3, [x1]", kStore },
    { 0xc8047c23, "stxr w4, x3, [x1]", kStore | bit(a64::STREX_SPEC) },
    { 0xc8249423, "stlxp w4, x3, x5, [x1]", kStore | bit(a64::STREX_SPEC) },
    { 0x4c007020, "st1 {v0.16b}, [x1]", kStore },
    { 0xd9000023, "stlur x3, [x1]", kStore },
    { 0xd50b7421, "dc zva, x1", kStore },
    { 0xf8210062, "ldadd x1, x2, [x3]", kLoad | kStore },
    { 0xf821007f, "stadd x1, [x3]", kLoad | kStore },
    { 0xf8218062, "swp x1, x2, [x3]", kLoad | kStore },
    { 0xc8a17c62, "cas x1, x2, [x3]", kLoad | kStore },
    { 0x48207c82, "casp x0, x1, x2, x3, [x4]", kLoad | kStore },
    { 0xb8e10062, "ldaddal w1, w2, [x3]", kLoad | kStore },
    { 0xf9800020, "prfm pldl1keep, [x1]", kDp },
    { 0xf89f8020, "prfum pldl1keep, [x1, #-8]", kDp },
    { 0xd8000560, "prfm pldl1keep, label", kDp },
    { 0xd50b7e21, "dc civac, x1", kDp },
    { 0x14000028, "b label", kImm | bit(a64::PC_WRITE_RETIRED) },
    { 0x94000027, "bl label", kImm | bit(a64::PC_WRITE_RETIRED) },
    { 0x540004c1, "b.ne label", kImm, true },
    { 0xb40004a0, "cbz x0, label", kImm, true },
    { 0x37180480, "tbnz w0, #3, label", kImm, true },
    { 0xd61f0040, "br x2", kInd },
    { 0xd63f0040, "blr x2", kInd },
    { 0xd65f03c0, "ret", kInd | bit(a64::BR_RETURN_RETIRED) | bit(a64::BR_RETURN_SPEC) },
    { 0xd69f03e0, "eret", kInd | bit(a64::EXC_RETURN) },
    { 0xd4000001, "svc #0", kDp },
    { 0xd4000002, "hvc #0", kDp },
    { 0xd4200020, "brk #1", kDp },
    { 0xd5033fdf, "isb", kDp | bit(a64::ISB_SPEC) },
    { 0xd5033f9f, "dsb sy", kDp | bit(a64::DSB_SPEC) },
    { 0xd5033b9f, "dsb ish", kDp | bit(a64::DSB_SPEC) },
    { 0xd5033bbf, "dmb ish", kDp | bit(a64::DMB_SPEC) },
    { 0xd5033f5f, "clrex", kDp },
    { 0xd5182001, "msr ttbr0_el1, x1", kDp | bit(a64::TTBR_WRITE_RETIRED) },
    { 0xd5182021, "msr ttbr1_el1, x1", kDp | bit(a64::TTBR_WRITE_RETIRED) },
    { 0xd518d021, "msr contextidr_el1, x1", kDp | bit(a64::CID_WRITE_RETIRED) },
    { 0xd5182041, "msr tcr_el1, x1", kDp },
    { 0xd5382001, "mrs x1, ttbr0_el1", kDp },
    { 0xd503201f, "nop", kDp },
    { 0xd503207f, "wfi", kDp },
    { 0x8b020020, "add x0, x1, x2", kDp },
    { 0x100001e0, "adr x0, label", kDp },
    { 0xd2800020, "mov x0, #1", kDp },
    { 0x9b020c20, "madd x0, x1, x2, x3", kDp },
    { 0x1e622820, "fadd d0, d1, d2", kExec | bit(a64::VFP_SPEC) },
    { 0x9e670020, "fmov d0, x1", kExec | bit(a64::VFP_SPEC) },
    { 0x9e620020, "scvtf d0, x1", kExec | bit(a64::VFP_SPEC) },
    { 0x9e780020, "fcvtzs x0, d1", kExec | bit(a64::VFP_SPEC) },
    { 0x4e22d420, "fadd v0.4s, v1.4s, v2.4s", kExec | bit(a64::ASE_SPEC) },
    { 0x4ea28420, "add v0.4s, v1.4s, v2.4s", kExec | bit(a64::ASE_SPEC) },
    { 0x5ef1b820, "addp d0, v1.2d", kExec | bit(a64::ASE_SPEC) },
    { 0x0ee2e020, "pmull v0.1q, v1.1d, v2.1d", kExec | bit(a64::ASE_SPEC) },
    { 0x4e284820, "aese v0.16b, v1.16b", kExec | bit(a64::CRYPTO_SPEC) },
    { 0x5e024020, "sha256h q0, q1, v2.4s", kExec | bit(a64::CRYPTO_SPEC) },
    { 0x5e280820, "sha1h s0, s1", kExec | bit(a64::CRYPTO_SPEC) },
};

std::string names(Mask m)
{
    std::string s;
    for (unsigned e = 0; e < a64::kNumEvents; e++)
        if (m >> e & 1)
            s += std::string(s.empty() ? "" : " ") + a64::name((a64::Event)e);
    return s;
}

}  // namespace

TEST(A64Events, EachInstructionGeneratesItsClassesEvents)
{
    for (const Case &c : kCases) {
        const a64::Insn in = a64::classify(c.word);
        EXPECT_EQ(names(in.events), names(c.events)) << c.text;
        EXPECT_EQ(in.conditional_branch, c.conditional) << c.text;
    }
}

// Every word is classified, each an executed instruction (INST_RETIRED) of
// at most one of the classes DP_SPEC, ASE_SPEC, VFP_SPEC, CRYPTO_SPEC, a
// load or store, a Software change of the PC; MEM_ACCESS itself is never in
// a mask (it is told as MEM_ACCESS_RD + MEM_ACCESS_WR), nor is what the
// platform generates (exceptions, bus accesses).
TEST(A64Events, EveryWordIsOfOneClass)
{
    const Mask classes[] = { bit(a64::DP_SPEC),     bit(a64::ASE_SPEC),  bit(a64::VFP_SPEC),
                             bit(a64::CRYPTO_SPEC), bit(a64::LDST_SPEC), bit(a64::PC_WRITE_SPEC) };
    const Mask never = bit(a64::MEM_ACCESS) | bit(a64::EXC_TAKEN) | bit(a64::EXC_UNDEF) | bit(a64::EXC_SVC) |
                       bit(a64::EXC_PABORT) | bit(a64::EXC_IRQ) | bit(a64::BUS_ACCESS) | bit(a64::BUS_ACCESS_RD) |
                       bit(a64::BUS_ACCESS_WR);
    uint32_t w = 0x12345678;
    for (int i = 0; i < 1 << 20; i++) {
        w = w * 1664525u + 1013904223u;
        const a64::Insn in = a64::classify(w);
        ASSERT_TRUE(in.events & bit(a64::INST_RETIRED)) << std::hex << w;
        int n = 0;
        for (Mask c : classes)
            n += (in.events & c) != 0;
        ASSERT_EQ(n, 1) << std::hex << w << ": " << names(in.events);
        ASSERT_EQ(in.events & never, 0u) << std::hex << w;
    }
}

TEST(A64Events, EveryEventHasItsArmNumberAndName)
{
    EXPECT_EQ(a64::kNumber[a64::MEM_ACCESS], 0x13);
    EXPECT_EQ(a64::kNumber[a64::BR_RETIRED], 0x21);
    EXPECT_EQ(a64::kNumber[a64::EXC_IRQ], 0x86);
    EXPECT_STREQ(a64::name(a64::BUS_ACCESS_WR), "BUS_ACCESS_WR");
    for (unsigned e = 0; e < a64::kNumEvents; e++)
        for (unsigned f = e + 1; f < a64::kNumEvents; f++)
            EXPECT_NE(a64::kNumber[e], a64::kNumber[f]) << a64::name((a64::Event)e);
}

namespace {

struct Code {
    std::vector<uint32_t> words;
    int located = 0;
};

const uint32_t *locate(void *ctx, uint64_t, unsigned n, uint32_t *buf)
{
    auto &c = *static_cast<Code *>(ctx);
    c.located++;
    std::memcpy(buf, c.words.data(), 4 * n);
    return buf;
}

}  // namespace

// A block is classified once and trusted until clear() (the guest
// invalidated its instruction cache or changed its translation); then it is
// checked against its code once, and classified again if the code changed,
// its executions of the old code added to the tally first.
TEST(IssBlocks, ClassifiedOnceAndAgainWhenItsCodeChanges)
{
    IssBlockCache cache;
    IssTally pending;
    Code code{ { 0xf9400023 /* ldr */, 0xf9000023 /* str */, 0x540004c1 /* b.ne */ } };
    IssBlock &b = cache.get(0x40001000, 12, locate, &code, pending);
    EXPECT_EQ(b.count[a64::LD_RETIRED], 1u);
    EXPECT_EQ(b.count[a64::MEM_ACCESS], 2u);
    EXPECT_TRUE(b.conditional_last);
    EXPECT_FALSE(b.recoded);  // new: its translation is of this code
    cache.ran(b);
    cache.ran(cache.get(0x40001000, 12, locate, &code, pending));
    EXPECT_EQ(cache.classified(), 1u);
    EXPECT_EQ(code.located, 1);  // trusted: not read again
    code.words[1] = 0xf9400023;  // str -> ldr, written by the guest
    cache.clear();               // ... which invalidates its instruction cache
    IssBlock &c = cache.get(0x40001000, 12, locate, &code, pending);
    EXPECT_EQ(cache.classified(), 2u);
    EXPECT_EQ(pending.n[a64::ST_RETIRED], 2u);  // the two runs of the old code
    EXPECT_EQ(c.count[a64::LD_RETIRED], 2u);
    EXPECT_EQ(c.count[a64::ST_RETIRED], 0u);
    EXPECT_TRUE(c.recoded);  // its translation may be of the old code: the ISS drops it
    c.recoded = false;
    cache.ran(c);
    cache.drain(pending);
    EXPECT_EQ(pending.n[a64::LD_RETIRED], 4u);
    EXPECT_EQ(pending.n[a64::INST_RETIRED], 9u);
    cache.drain(pending);  // drained once
    EXPECT_EQ(pending.n[a64::INST_RETIRED], 9u);
    cache.clear();  // the translation changed: located again, same code
    EXPECT_FALSE(cache.get(0x40001000, 12, locate, &code, pending).recoded);
    EXPECT_EQ(code.located, 3);
    EXPECT_EQ(cache.classified(), 2u);
    cache.clear(IssBlockCache::kUpper);  // TTBR1's half: this block (bit 55 clear) stays trusted
    cache.get(0x40001000, 12, locate, &code, pending);
    EXPECT_EQ(code.located, 3);
    cache.clear(IssBlockCache::kLower);  // TTBR0's half (a TTBR0_EL1 write): checked once more
    cache.get(0x40001000, 12, locate, &code, pending);
    cache.get(0x40001000, 12, locate, &code, pending);
    EXPECT_EQ(code.located, 4);
    IssBlock &d = cache.get(0x40001000, 8, locate, &code, pending);  // retranslated shorter
    EXPECT_EQ(d.instructions(), 2u);
    EXPECT_FALSE(d.conditional_last);
    EXPECT_TRUE(d.recoded);
}

// A clear of one half of the address space (a TTBR0_EL1 write clears the
// lower half's) leaves the other half's blocks trusted: a kernel block at
// 0xFFFF800008000000 is not checked again when a process's tables change.
TEST(IssBlocks, AClearOfOneHalfLeavesTheOtherTrusted)
{
    IssBlockCache cache;
    IssTally pending;
    Code kernel{ { 0x8b020020 /* add */, 0xd65f03c0 /* ret */ } }, user{ { 0xf9400023 /* ldr */, 0xd4000001 } };
    const uint64_t upper = 0xFFFF800008000000ull, lower = 0x400000;
    cache.get(upper, 8, locate, &kernel, pending);
    cache.get(lower, 8, locate, &user, pending);
    cache.clear(IssBlockCache::kLower);
    cache.get(upper, 8, locate, &kernel, pending);
    cache.get(lower, 8, locate, &user, pending);
    EXPECT_EQ(kernel.located, 1);
    EXPECT_EQ(user.located, 2);
    cache.clear();  // both (a TLB invalidation)
    cache.get(upper, 8, locate, &kernel, pending);
    cache.get(lower, 8, locate, &user, pending);
    EXPECT_EQ(kernel.located, 2);
    EXPECT_EQ(user.located, 3);
    EXPECT_EQ(cache.classified(), 2u);  // the code never changed
}

namespace {

// Registers for an address: Xn = 0x1000 x (n + 1), SP = 0x80000.
uint64_t test_register(void *, unsigned n, bool sp)
{
    if (n == 31)
        return sp ? 0x80000 : 0;
    return 0x1000ull * (n + 1);
}

}  // namespace

// The address, size and direction of each class of load and store (a Data
// Abort's FAR and WnR come from them): X1 = 0x2000, X2 = 0x3000, X3 =
// 0x4000, SP = 0x80000. The words are the GNU assembler's.
TEST(A64Events, TheDataAccessOfEachLoadAndStoreClass)
{
    const a64::Registers regs{ test_register, nullptr, 4 };  // DCZID_EL0.BS 4: 64-byte blocks
    struct Case {
        uint32_t insn;
        const char *text;
        uint64_t va, bytes;
        bool write, aligned;
    };
    const Case cases[] = {
        { 0xf9400823, "ldr x3, [x1, #16]", 0x2010, 8, false, false },
        { 0xb85fcc23, "ldr w3, [x1, #-4]!", 0x1FFC, 4, false, false },
        { 0xf8408423, "ldr x3, [x1], #8", 0x2000, 8, false, false },
        { 0xf85fd023, "ldur x3, [x1, #-3]", 0x1FFD, 8, false, false },
        { 0xf8627823, "ldr x3, [x1, x2, lsl #3]", 0x2000 + 0x3000 * 8, 8, false, false },
        { 0xb862c823, "ldr w3, [x1, w2, sxtw]", 0x5000, 4, false, false },
        { 0xf90013e3, "str x3, [sp, #32]", 0x80020, 8, true, false },
        { 0x39000423, "strb w3, [x1, #1]", 0x2001, 1, true, false },
        { 0xa97f0440, "ldp x0, x1, [x2, #-16]", 0x2FF0, 16, false, false },
        { 0xa9be7bfd, "stp x29, x30, [sp, #-32]!", 0x7FFE0, 16, true, false },
        { 0xa8c10440, "ldp x0, x1, [x2], #16", 0x3000, 16, false, false },
        { 0xad410440, "ldp q0, q1, [x2, #32]", 0x3020, 32, false, false },
        { 0xc85f7c20, "ldxr x0, [x1]", 0x2000, 8, false, true },
        { 0xc8027c20, "stxr w2, x0, [x1]", 0x2000, 8, true, true },
        { 0x88dffc20, "ldar w0, [x1]", 0x2000, 4, false, true },
        { 0xc8e0fc41, "casal x0, x1, [x2]", 0x3000, 8, true, true },
        { 0xf8200041, "ldadd x0, x1, [x2]", 0x3000, 8, true, true },
        { 0x58000040, "ldr x0, .+8 (at 0x40000000)", 0x40000008, 8, false, false },
        { 0x4c40a020, "ld1 {v0.16b, v1.16b}, [x1]", 0x2000, 1, false, false },
        { 0x0d009040, "st1 {v0.s}[1], [x2]", 0x3000, 1, true, false },
        { 0xd50b7423, "dc zva, x3", 0x4000, 64, true, false },
        { 0x3dc00c20, "ldr q0, [x1, #48]", 0x2030, 16, false, false },
        { 0xf8408820, "ldtr x0, [x1, #8]", 0x2008, 8, false, false },
    };
    for (const Case &c : cases) {
        a64::Access a;
        ASSERT_TRUE(a64::data_access(c.insn, 0x40000000, regs, a)) << c.text;
        EXPECT_EQ(a.va, c.va) << c.text;
        EXPECT_EQ(a.bytes, c.bytes) << c.text;
        EXPECT_EQ(a.write, c.write) << c.text;
        EXPECT_EQ(a.aligned, c.aligned) << c.text;
    }
    a64::Access a;
    EXPECT_FALSE(a64::data_access(0xf9800020, 0, regs, a));  // prfm pldl1keep, [x1]: no access
    EXPECT_FALSE(a64::data_access(0x8b020020, 0, regs, a));  // add x0, x1, x2
}

// The instructions that may access data memory: the Loads and Stores
// group (pairs included), SVE's loads, and SYS (DC ZVA); not an ALU
// instruction, a branch or an MRS.
TEST(A64Events, MayAccessMemory)
{
    EXPECT_TRUE(a64::may_access_memory(0xf9400023));   // ldr x3, [x1]
    EXPECT_TRUE(a64::may_access_memory(0xa9400420));   // ldp x0, x1, [x1]
    EXPECT_TRUE(a64::may_access_memory(0xa540a000));   // ld1w {z0.s}, p0/z, [x0] (SVE)
    EXPECT_TRUE(a64::may_access_memory(0xd50b7420));   // dc zva, x0
    EXPECT_FALSE(a64::may_access_memory(0x8b020020));  // add x0, x1, x2
    EXPECT_FALSE(a64::may_access_memory(0x540004c1));  // b.ne
    EXPECT_FALSE(a64::may_access_memory(0xd53b9d00));  // mrs x0, pmccntr_el0
}

// A block records its one instruction that may access memory, by index,
// and none when it has two, or none at all; classified again, it records
// the new code's.
TEST(IssBlocks, RecordsItsOnlyMemoryAccess)
{
    IssBlockCache cache;
    IssTally pending;
    Code code{ { 0x8b020020 /* add */, 0x8b020020 /* add */, 0xf9400023 /* ldr */, 0x540004c1 /* b.ne */ } };
    EXPECT_EQ(cache.get(0x40002000, 16, locate, &code, pending).single_access, 2u);
    code.words[0] = 0xf9000023;  // add -> str: two accesses
    cache.clear();
    EXPECT_EQ(cache.get(0x40002000, 16, locate, &code, pending).single_access, IssBlock::kNoSingleAccess);
    code.words[0] = 0xd50b7420;  // str -> dc zva: still two
    cache.clear();
    EXPECT_EQ(cache.get(0x40002000, 16, locate, &code, pending).single_access, IssBlock::kNoSingleAccess);
    code.words[0] = code.words[2] = 0x8b020020;  // no access at all
    cache.clear();
    EXPECT_EQ(cache.get(0x40002000, 16, locate, &code, pending).single_access, IssBlock::kNoSingleAccess);
}

TEST(IssBlocks, ATallyTakesPartOfABlock)
{
    IssBlockCache cache;
    IssTally pending;
    Code code{ { 0xf9400023 /* ldr */, 0xf9000023 /* str */, 0x8b020020 /* add */, 0xd65f03c0 /* ret */ } };
    IssBlock &b = cache.get(0x1000, 16, locate, &code, pending);
    IssTally t;
    EXPECT_TRUE(t.empty());
    t.add(b, 0, 1);
    t.add(b, 1, 3);
    EXPECT_EQ(t.n[a64::INST_RETIRED], 3u);
    EXPECT_EQ(t.n[a64::LDST_SPEC], 2u);
    EXPECT_EQ(t.n[a64::BR_RETURN_RETIRED], 0u);
    t.add(b);
    EXPECT_EQ(t.n[a64::INST_RETIRED], 7u);
    EXPECT_EQ(t.n[a64::BR_RETURN_RETIRED], 1u);
    EXPECT_FALSE(t.empty());
}
