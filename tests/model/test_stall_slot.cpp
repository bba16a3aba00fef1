// SPDX-License-Identifier: Apache-2.0
// STALL_SLOT with MT == 1 (D14.3): "for every cycle, the counter counts all
// Slots not occupied by any instruction or operation for any PE". Each PE
// reports its own STALL_SLOT (the Slots it leaves on a cycle on which it is
// active), so with k active PEs a cycle's count is the sum of their values
// less (k - 1) x SLOTS (PMMIR_EL1.SLOTS), never below 0, and SLOTS with
// none active. At 1 GHz processor cycle k is ((k - 1) ns, k ns].
#include "fixture.h"

namespace pmvp::test {
namespace {

constexpr uint16_t kStallSlot = PMVP_EV_STALL_SLOT;

class StallSlot : public Kernel {
protected:
    void SetUp() override
    {
        Kernel::SetUp();
        cfg.num_pes = 2;
        cfg.clock_stops_in_wfx = false;
        cfg.pmmir = PMVP_FIELD_PREP(PMVP_PMMIR_EL1_SLOTS, 4);
    }
    // PE 0 leaves `a` Slots a cycle and PE 1 `b`, over the cycles up to `now`
    // since the last input.
    int leave(uint32_t a, uint32_t b, uint64_t cycles, pmvp_time now)
    {
        const pmvp_run ra[] = { { cycles, a } }, rb[] = { { cycles, b } };
        const pmvp_batch both[] = { { 0, kStallSlot, ra, 1 }, { 1, kStallSlot, rb, 1 } };
        return pmvp_core_report_batches(&core, both, b == UINT32_MAX ? 1 : 2, now);
    }
};

// Two SMT threads on a 4-Slot core: PE 0 leaves 3 Slots a cycle (it
// occupies 1), PE 1 leaves 2 (it occupies 2): one Slot a cycle is free,
// 100 over 100 cycles, where PE 0's MT == 0 counter counts its own 300.
// With PE 1 in WFI, PE 0 alone leaves 3: 300 more. With both in WFI and
// the clock running, no PE occupies any: 4 a cycle, 400 more.
TEST_F(StallSlot, Mt1CountsTheSlotsNoActivePEOccupies)
{
    init();
    program(0, 0, kStallSlot, PMVP_PMEVTYPER_EL0_MT);
    program(0, 1, kStallSlot);
    ASSERT_EQ(leave(3, 2, 100, 100 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 100 * kNs), 100u);
    EXPECT_EQ(counter(0, 1, 100 * kNs), 300u);
    state(1, PMVP_PE_WFI, 100 * kNs);
    ASSERT_EQ(leave(3, UINT32_MAX, 100, 200 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 200 * kNs), 400u);
    state(0, PMVP_PE_WFI, 200 * kNs);
    EXPECT_EQ(counter(0, 0, 300 * kNs), 800u);
    EXPECT_EQ(counter(0, 1, 300 * kNs), 600u);
}

// Reports of one cycle add up before the rule applies: 3 and 2 in cycle
// 11 leave 1 free; cycles on which both PEs run and report nothing are
// fully occupied (each reported 0 free Slots), and a PE's lone report of 6
// leaves 2 once the other's 4 occupied Slots are taken off.
TEST_F(StallSlot, ReportsOfOneCycleAddUpFirst)
{
    init();
    program(0, 0, kStallSlot, PMVP_PMEVTYPER_EL0_MT);
    ASSERT_EQ(pmvp_core_report(&core, 0, kStallSlot, 3, 10 * kNs + 200), PMVP_OK);
    ASSERT_EQ(pmvp_core_report(&core, 1, kStallSlot, 2, 10 * kNs + 700), PMVP_OK);
    ASSERT_EQ(pmvp_core_report(&core, 0, kStallSlot, 6, 20 * kNs + 500), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 100 * kNs), 1u + 2u);
}

// Without PMMIR.SLOTS the rule has no Slots to take off: an MT == 1
// counter of STALL_SLOT sums the PEs' reports as any other occurrence.
TEST_F(StallSlot, WithoutSlotsItIsTheSum)
{
    cfg.pmmir = 0;
    init();
    program(0, 0, kStallSlot, PMVP_PMEVTYPER_EL0_MT);
    ASSERT_EQ(leave(3, 2, 100, 100 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 100 * kNs), 500u);
}

// A threshold applies to the free Slots: cycles with at least 2 free.
// PE 0 leaves 3 then 4 (its runs), PE 1 2 throughout: 1 free, then 2.
TEST_F(StallSlot, TheThresholdSeesTheFreeSlots)
{
    cfg.feat_pmuv3p7 = true;
    cfg.pmmir |= PMVP_FIELD_PREP(PMVP_PMMIR_EL1_THWIDTH, 4);
    init();
    program(0, 0, kStallSlot, PMVP_PMEVTYPER_EL0_MT | tc(kGeCount) | th(2));
    const pmvp_run ra[] = { { 30, 3 }, { 70, 4 } }, rb[] = { { 100, 2 } };
    const pmvp_batch both[] = { { 0, kStallSlot, ra, 2 }, { 1, kStallSlot, rb, 1 } };
    ASSERT_EQ(pmvp_core_report_batches(&core, both, 2, 100 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 100 * kNs), 70u);
}

// The Slots reported in a cycle are that cycle's. PE 0, alone, leaves 3 in
// cycle 11 while the rule applies; MDCR_EL3.MTPME = 0 then disables MT
// before the cycle ends, so at its end the counter is an MT == 0 counter
// of occurrences, which sees none reported after the change: the 3 end
// with the cycle. MTPME = 1 again at 20.5 ns: from cycle 21 PE 0 runs and
// leaves none, and the counter stays at 0, with the same count from its
// checkpoint taken in between.
TEST_F(StallSlot, TheSlotsOfACycleEndWithItWhenTheRuleGoesOffInIt)
{
    cfg.num_pes = 1;
    init();
    program(0, 0, kStallSlot, PMVP_PMEVTYPER_EL0_MT);
    const uint64_t hpmn = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, cfg.num_counters);
    ASSERT_EQ(pmvp_core_report(&core, 0, kStallSlot, 3, 10 * kNs + 500), PMVP_OK);
    controls(0, hpmn, 0, 10 * kNs + 600);
    EXPECT_EQ(counter(0, 0, 15 * kNs), 0u);
    save_and_restore();
    controls(0, hpmn, PMVP_MDCR_EL3_MTPME, 20 * kNs + 500);
    EXPECT_EQ(counter(0, 0, 100 * kNs), 0u);
}

}  // namespace
}  // namespace pmvp::test
