// SPDX-License-Identifier: Apache-2.0
// AMUv1 (D16): what the activity monitors count, their registers, and their
// agreement with the PMU.
#include "fixture.h"
#include "pmvp/amu.h"

namespace pmvp::test {
namespace {

class Amu : public Kernel {
protected:
    void amu_write(unsigned pe, pmvp_amu_reg r, uint64_t v, pmvp_time t, unsigned n = 0)
    {
        ASSERT_EQ(pmvp_amu_write(&core, pe, r, n, v, t), PMVP_OK) << pmvp_amu_reg_name(r);
    }
    uint64_t amu_read(unsigned pe, pmvp_amu_reg r, pmvp_time t, unsigned n = 0)
    {
        uint64_t v = 0;
        EXPECT_EQ(pmvp_amu_read(&core, pe, r, n, t, &v), PMVP_OK) << pmvp_amu_reg_name(r);
        return v;
    }
    uint64_t arch(unsigned pe, unsigned n, pmvp_time t) { return amu_read(pe, PMVP_AMEVCNTR0_EL0, t, n); }
    uint64_t aux(unsigned pe, unsigned n, pmvp_time t) { return amu_read(pe, PMVP_AMEVCNTR1_EL0, t, n); }
    void enable_all(unsigned pe, pmvp_time t = 0)
    {
        amu_write(pe, PMVP_AMCNTENSET0_EL0, 0xF, t);
        amu_write(pe, PMVP_AMCNTENSET1_EL0, 0xFFFF, t);
    }
    void set_level(unsigned pe, uint16_t ev, uint32_t level, pmvp_time t)
    {
        ASSERT_EQ(pmvp_core_set_level(&core, pe, ev, level, t), PMVP_OK);
    }
    void report(unsigned pe, uint16_t ev, uint64_t count, pmvp_time t)
    {
        ASSERT_EQ(pmvp_core_report(&core, pe, ev, count, t), PMVP_OK);
    }
};

// D16.3.1: CPU_CYCLES counts every processor cycle, CNT_CYCLES every System
// Counter tick: 1 ms at 2 GHz with a 100 MHz System Counter.
TEST_F(Amu, D16_3_1_CpuCyclesAtProcessorRateCntCyclesAtSystemCounterRate)
{
    cfg.processor_hz = 2 * kGHz;
    init();
    enable_all(0);
    EXPECT_EQ(arch(0, 0, kMs), 2000000u);
    EXPECT_EQ(arch(0, 1, kMs), 100000u);
}

// D16.3.1: neither cycle counter increments in WFI or WFE, whether or not
// the processor clock keeps running.
TEST_F(Amu, D16_3_1_NoCyclesInWfiOrWfe)
{
    for (bool stops : { true, false }) {
        SCOPED_TRACE(stops ? "clock stops in WFx" : "clock runs in WFx");
        cfg.clock_stops_in_wfx = stops;
        init();
        enable_all(0);
        state(0, PMVP_PE_WFI, 1 * kMs);
        state(0, PMVP_PE_WFE, 2 * kMs);
        state(0, PMVP_PE_RUN, 3 * kMs);
        EXPECT_EQ(arch(0, 0, 4 * kMs), 2000000u);  // 2 ms running at 1 GHz
        EXPECT_EQ(arch(0, 1, 4 * kMs), 200000u);   // 2 ms at 100 MHz
    }
}

// D16.2.1: a frequency change changes CPU_CYCLES' rate, not CNT_CYCLES';
// their ratio measures the effective frequency.
TEST_F(Amu, D16_2_1_DvfsChangesCpuCyclesOnly)
{
    init();
    enable_all(0);
    ASSERT_EQ(pmvp_core_set_clock(&core, 2 * kGHz, 1 * kMs), PMVP_OK);
    ASSERT_EQ(pmvp_core_set_clock(&core, 500000000, 2 * kMs), PMVP_OK);
    ASSERT_EQ(pmvp_core_set_clock(&core, 0, 3 * kMs), PMVP_OK);
    uint64_t cpu = arch(0, 0, 4 * kMs), cnt = arch(0, 1, 4 * kMs);
    EXPECT_EQ(cpu, 1000000u + 2000000u + 500000u);
    EXPECT_EQ(cnt, 400000u);                                   // the System Counter runs while the clock is stopped
    EXPECT_EQ(cpu * cfg.system_counter_hz / cnt, 875000000u);  // effective 0.875 GHz
}

// CNT_CYCLES follows the System Counter's frequency, whatever it is.
TEST_F(Amu, D16_3_1_CntCyclesFollowsTheSystemCounter)
{
    init();
    enable_all(0);
    ASSERT_EQ(pmvp_core_set_system_counter(&core, 50000000, kMs), PMVP_OK);
    EXPECT_EQ(arch(0, 1, 2 * kMs), 150000u);
}

// D16.3.1: INST_RETIRED as reported; STALL_BACKEND_MEM while the stall holds.
TEST_F(Amu, D16_3_1_InstRetiredAndMemoryStallCycles)
{
    init();
    enable_all(0);
    report(0, PMVP_EV_INST_RETIRED, 1234, 10 * kUs);
    set_level(0, PMVP_EV_STALL_BACKEND_MEM, 1, 250 * kUs);
    set_level(0, PMVP_EV_STALL_BACKEND_MEM, 0, 750 * kUs);
    EXPECT_EQ(arch(0, 2, kMs), 1234u);
    EXPECT_EQ(arch(0, 3, kMs), 500000u);
}

// D16.2.1: authentication and the PMU's prohibition do not affect counting.
TEST_F(Amu, D16_2_1_CountsWhereThePmuIsProhibited)
{
    init();
    enable_all(0);
    program(0, 0, PMVP_EV_CPU_CYCLES);
    context(0, 1, PMVP_SECURE, 0);  // Secure, MDCR_EL3.SPME = 0: PMU prohibited
    report(0, PMVP_EV_INST_RETIRED, 7, 10 * kUs);
    EXPECT_EQ(counter(0, 0, kMs), 0u);
    EXPECT_EQ(arch(0, 0, kMs), 1000000u);
    EXPECT_EQ(arch(0, 2, kMs), 7u);
}

// D16.2.2: AMCR.HDBG halts every counter while the PE is halted in Debug state.
TEST_F(Amu, D16_2_2_HdbgHaltsCountingInDebugState)
{
    init();
    enable_all(0);
    pmvp_context halted{};
    halted.el = 1;
    halted.halted = true;
    ASSERT_EQ(pmvp_core_set_context(&core, 0, &halted, 1 * kMs), PMVP_OK);
    report(0, PMVP_EV_INST_RETIRED, 5, 1 * kMs);  // HDBG = 0: counts
    amu_write(0, PMVP_AMCR_EL0, PMVP_AMCR_EL0_HDBG, 2 * kMs);
    report(0, PMVP_EV_INST_RETIRED, 9, 2 * kMs);  // HDBG = 1: does not
    context(0, 1, PMVP_NONSECURE, 3 * kMs);
    EXPECT_EQ(arch(0, 0, 4 * kMs), 3000000u);  // the 1 ms halted with HDBG is missing
    EXPECT_EQ(arch(0, 1, 4 * kMs), 300000u);
    EXPECT_EQ(arch(0, 2, 4 * kMs), 5u);
}

// D16.2.1: 64-bit wrapping counters with no overflow status.
TEST_F(Amu, D16_2_1_CountersWrapAt64Bits)
{
    init();
    amu_write(0, PMVP_AMEVCNTR0_EL0, ~UINT64_C(0) - 9, 0, 0);
    amu_write(0, PMVP_AMCNTENSET0_EL0, 1, 0);
    EXPECT_EQ(arch(0, 0, 20 * kNs), 10u);
    EXPECT_FALSE(irq(0, 20 * kNs));
}

// D16.2.2: each counter counts only while enabled; SET and CLR are one state.
TEST_F(Amu, D16_2_2_EnableSetAndClear)
{
    cfg.amu_num_aux = 2;
    init();
    amu_write(0, PMVP_AMCNTENSET0_EL0, 0xFFFFFFFF, 0);
    amu_write(0, PMVP_AMCNTENSET1_EL0, 0xFFFFFFFF, 0);
    EXPECT_EQ(amu_read(0, PMVP_AMCNTENCLR0_EL0, 0), 0xFu);
    EXPECT_EQ(amu_read(0, PMVP_AMCNTENCLR1_EL0, 0), 0x3u);
    amu_write(0, PMVP_AMCNTENCLR0_EL0, 0x1, 1 * kMs);
    amu_write(0, PMVP_AMCNTENCLR1_EL0, 0x2, 1 * kMs);
    EXPECT_EQ(amu_read(0, PMVP_AMCNTENSET0_EL0, 2 * kMs), 0xEu);
    EXPECT_EQ(amu_read(0, PMVP_AMCNTENSET1_EL0, 2 * kMs), 0x1u);
    EXPECT_EQ(arch(0, 0, 2 * kMs), 1000000u);
    EXPECT_EQ(arch(0, 1, 2 * kMs), 200000u);
    EXPECT_EQ(aux(0, 0, 2 * kMs), 2000000u);  // aux events default to CPU_CYCLES
    EXPECT_EQ(aux(0, 1, 2 * kMs), 1000000u);
}

// D16.3.2: auxiliary counters count PMU events of every class an AMU can.
TEST_F(Amu, D16_3_2_AuxiliaryCountersCountPmuEvents)
{
    cfg.amu_num_aux = 4;
    cfg.bus_hz = 250000000;
    init();
    amu_write(0, PMVP_AMEVTYPER1_EL0, PMVP_EV_INST_RETIRED, 0, 0);
    amu_write(0, PMVP_AMEVTYPER1_EL0, PMVP_EV_STALL_BACKEND, 0, 1);
    amu_write(0, PMVP_AMEVTYPER1_EL0, PMVP_EV_BUS_CYCLES, 0, 2);
    amu_write(0, PMVP_AMEVTYPER1_EL0, PMVP_EV_CNT_CYCLES, 0, 3);
    enable_all(0);
    report(0, PMVP_EV_INST_RETIRED, 300, 1 * kUs);
    set_level(0, PMVP_EV_STALL_BACKEND, 1, 100 * kUs);
    state(0, PMVP_PE_WFI, 500 * kUs);
    state(0, PMVP_PE_RUN, 600 * kUs);
    EXPECT_EQ(aux(0, 0, kMs), 300u);
    EXPECT_EQ(aux(0, 1, kMs), 800000u);  // 0.9 ms stalled minus 0.1 ms in WFI, at 1 GHz
    EXPECT_EQ(aux(0, 2, kMs), 225000u);  // 0.9 ms at 250 MHz
    EXPECT_EQ(aux(0, 3, kMs), 90000u);   // 0.9 ms at 100 MHz
}

// An FGMT barrel: the AMU counts every cycle of the core's clock on each
// running thread (amu.h), unlike PMU CPU_CYCLES with MT == 0.
TEST_F(Amu, CpuCyclesOfABarrelThreadCountEveryCoreCycle)
{
    cfg.num_pes = 2;
    cfg.mt_policy = PMVP_MT_FGMT;
    init();
    for (unsigned pe = 0; pe < 2; pe++) {
        enable_all(pe);
        program(pe, 0, PMVP_EV_CPU_CYCLES);
    }
    EXPECT_EQ(arch(0, 0, kMs), 1000000u);
    EXPECT_EQ(arch(1, 0, kMs), 1000000u);
    EXPECT_EQ(counter(0, 0, kMs), 500000u);
}

// The AMU and the PMU agree: counting CPU_CYCLES and INST_RETIRED under
// equivalent conditions (SMT, Non-secure EL1, no filter, MT == 0) through
// WFI, DVFS, power-down of a sibling and reports, they give equal counts.
TEST_F(Amu, AgreesWithThePmuUnderEquivalentConditions)
{
    cfg.num_pes = 2;
    init();
    for (unsigned pe = 0; pe < 2; pe++) {
        enable_all(pe);
        program(pe, 0, PMVP_EV_CPU_CYCLES);
        program(pe, 1, PMVP_EV_INST_RETIRED);
    }
    pmvp_time t = 0;
    uint64_t seed = 12345;
    for (int i = 0; i < 200; i++) {
        seed = seed * 6364136223846793005u + 1442695040888963407u;
        t += 1 + (seed >> 40) % (20 * kUs);
        unsigned pe = (unsigned)(seed >> 20) & 1;
        switch ((seed >> 24) % 4) {
        case 0: state(pe, (seed >> 30) & 1 ? PMVP_PE_RUN : PMVP_PE_WFI, t); break;
        case 1: ASSERT_EQ(pmvp_core_set_clock(&core, 200000000 + (seed >> 33) % 3000000000u, t), PMVP_OK); break;
        default:
            if (core.pe[pe].state == PMVP_PE_RUN)
                report(pe, PMVP_EV_INST_RETIRED, (seed >> 36) % 1000, t);
            break;
        }
    }
    for (unsigned pe = 0; pe < 2; pe++) {
        EXPECT_EQ(arch(pe, 0, t), counter(pe, 0, t)) << "CPU_CYCLES, PE " << pe;
        EXPECT_EQ(arch(pe, 2, t), counter(pe, 1, t)) << "INST_RETIRED, PE " << pe;
        EXPECT_GT(arch(pe, 2, t), 0u);
    }
}

// D16.2.3: an AMU reset zeroes counters and enables; AMEVTYPER1 returns to
// its configured event.
TEST_F(Amu, D16_2_3_ResetZeroesCountersAndEnables)
{
    cfg.amu_num_aux = 1;
    cfg.amu_aux_event[0] = PMVP_EV_CNT_CYCLES;
    init();
    enable_all(0);
    amu_write(0, PMVP_AMEVTYPER1_EL0, PMVP_EV_CPU_CYCLES, 0, 0);
    amu_write(0, PMVP_AMCR_EL0, PMVP_AMCR_EL0_HDBG, 0);
    ASSERT_EQ(pmvp_amu_reset(&core, 0, kMs), PMVP_OK);
    EXPECT_EQ(arch(0, 0, 2 * kMs), 0u);
    EXPECT_EQ(aux(0, 0, 2 * kMs), 0u);
    EXPECT_EQ(amu_read(0, PMVP_AMCNTENSET0_EL0, 2 * kMs), 0u);
    EXPECT_EQ(amu_read(0, PMVP_AMCR_EL0, 2 * kMs), 0u);
    EXPECT_EQ(amu_read(0, PMVP_AMEVTYPER1_EL0, 2 * kMs), PMVP_EV_CNT_CYCLES);
}

// D24.6: identification registers follow the configuration.
TEST_F(Amu, D24_6_IdentificationRegisters)
{
    cfg.amu_num_aux = 3;
    init();
    EXPECT_EQ(amu_read(0, PMVP_AMCFGR_EL0, 0), 0x11003F06u);  // NCG 1, HDBG, SIZE 63, N = 7 - 1
    EXPECT_EQ(amu_read(0, PMVP_AMCGCR_EL0, 0), 0x0304u);
    EXPECT_EQ(amu_read(0, PMVP_AMCG1IDR_EL0, 0), 0x7u);
    const uint64_t events[] = { 0x0011, 0x4004, 0x0008, 0x4005 };
    for (unsigned n = 0; n < 4; n++)
        EXPECT_EQ(amu_read(0, PMVP_AMEVTYPER0_EL0, 0, n), events[n]);
    cfg.amu_num_aux = 0;
    init();
    EXPECT_EQ(amu_read(0, PMVP_AMCFGR_EL0, 0), 0x01003F03u);  // one group
}

// D24.6: writable bits, read-only registers, indices, and missing features.
TEST_F(Amu, D24_6_WritableBitsAndErrors)
{
    cfg.amu_num_aux = 2;
    cfg.amu_aux_programmable = false;
    init();
    amu_write(0, PMVP_AMCR_EL0, ~UINT64_C(0), 0);
    EXPECT_EQ(amu_read(0, PMVP_AMCR_EL0, 0), PMVP_AMCR_EL0_HDBG | PMVP_AMCR_EL0_CG1RZ);
    amu_write(0, PMVP_AMUSERENR_EL0, ~UINT64_C(0), 0);
    EXPECT_EQ(amu_read(0, PMVP_AMUSERENR_EL0, 0), 1u);
    for (pmvp_amu_reg r :
         { PMVP_AMCFGR_EL0, PMVP_AMCGCR_EL0, PMVP_AMCG1IDR_EL0, PMVP_AMEVTYPER0_EL0, PMVP_AMEVTYPER1_EL0 })
        EXPECT_EQ(pmvp_amu_write(&core, 0, r, 0, 0, 0), PMVP_ERR_READ_ONLY) << pmvp_amu_reg_name(r);
    uint64_t v;
    EXPECT_EQ(pmvp_amu_read(&core, 0, PMVP_AMEVCNTR0_EL0, 4, 0, &v), PMVP_ERR_COUNTER);
    EXPECT_EQ(pmvp_amu_read(&core, 0, PMVP_AMEVCNTR1_EL0, 2, 0, &v), PMVP_ERR_COUNTER);
    EXPECT_EQ(pmvp_amu_read(&core, 0, PMVP_AMU_NUM_REGS, 0, 0, &v), PMVP_ERR_REGISTER);
    EXPECT_EQ(pmvp_amu_read(&core, 1, PMVP_AMCR_EL0, 0, 0, &v), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_amu_read(&core, 0, PMVP_AMCR_EL0, 0, 0, nullptr), PMVP_ERR_NULL);

    cfg.feat_amuv1p1 = false;
    init();
    amu_write(0, PMVP_AMCR_EL0, ~UINT64_C(0), 0);
    EXPECT_EQ(amu_read(0, PMVP_AMCR_EL0, 0), PMVP_AMCR_EL0_HDBG);  // CG1RZ is RES0
    EXPECT_EQ(pmvp_amu_read(&core, 0, PMVP_AMCG1IDR_EL0, 0, 0, &v), PMVP_ERR_REGISTER);

    cfg.feat_amuv1 = false;
    init();
    EXPECT_EQ(pmvp_amu_read(&core, 0, PMVP_AMCR_EL0, 0, 0, &v), PMVP_ERR_REGISTER);
}

// An AMEVTYPER1 event the AMU cannot count is kept, logged, and counts nothing.
TEST_F(Amu, UncountableAuxiliaryEventCountsNothing)
{
    static int logged;
    logged = 0;
    cfg.amu_num_aux = 1;
    cfg.log = [](void *, unsigned, const char *) { logged++; };
    init();
    enable_all(0);
    amu_write(0, PMVP_AMEVTYPER1_EL0, PMVP_EV_SW_INCR, 0, 0);
    EXPECT_EQ(amu_read(0, PMVP_AMEVTYPER1_EL0, 0), PMVP_EV_SW_INCR);
    EXPECT_EQ(logged, 1);
    EXPECT_EQ(aux(0, 0, kMs), 0u);
    // A configuration naming such an event is impossible.
    cfg.amu_aux_event[0] = PMVP_EV_CHAIN;
    pmvp_core other;
    EXPECT_EQ(pmvp_core_init(&other, &cfg), PMVP_ERR_CONFIG);
}

}  // namespace
}  // namespace pmvp::test
