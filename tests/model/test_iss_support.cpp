// SPDX-License-Identifier: Apache-2.0
// What an instruction-set simulator asks of the kernel: one call per
// MRS/MSR (decode, the D24.5/D24.6 checks, the access, and the syndrome of
// a refused access), the ID-register fields the configuration decides, and
// the occurrences of an event up to the next overflow that raises PMUIRQ.
#include "fixture.h"
#include "pmvp/sysreg.h"

namespace pmvp::test {
namespace {

// MRS/MSR encodings (op0, op1, CRn, CRm, op2).
struct Enc {
    unsigned op0, op1, crn, crm, op2;
};
constexpr Enc kPmccntr{ 3, 3, 9, 13, 0 };
constexpr Enc kPmcr{ 3, 3, 9, 12, 0 };
constexpr Enc kPmswinc{ 3, 3, 9, 12, 4 };
constexpr Enc kPmintenset{ 3, 0, 9, 14, 1 };
constexpr Enc kPmevcntr3{ 3, 3, 14, 8, 3 };
constexpr Enc kMidr{ 3, 0, 0, 0, 0 };

class IssSupport : public Kernel {
protected:
    int exec(bool write, Enc e, unsigned rt, uint64_t &v, pmvp_sysreg_execution &out, pmvp_time t,
             const pmvp_sysreg_context *higher = nullptr)
    {
        return pmvp_sysreg_execute_a64(&core, 0, write, e.op0, e.op1, e.crn, e.crm, e.op2, rt, higher, t, &v, &out);
    }
};

TEST_F(IssSupport, ExecuteReadsAndWritesAPermittedRegister)
{
    cfg.processor_hz = 2 * kGHz;
    init();
    pmvp_sysreg_execution out{};
    uint64_t v = PMVP_PMU_C;
    ASSERT_EQ(exec(true, { 3, 3, 9, 12, 1 }, 0, v, out, 0), PMVP_OK);  // MSR PMCNTENSET_EL0
    EXPECT_EQ(out.verdict, PMVP_SYSREG_PERMITTED);
    v = PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_D;  // the divider applies with PMCR.LC == 0
    ASSERT_EQ(exec(true, kPmcr, 1, v, out, 0), PMVP_OK);
    // 1 ms at 2 GHz, PMCR.D = 1: 2,000,000 cycles / 64.
    ASSERT_EQ(exec(false, kPmccntr, 2, v, out, kMs), PMVP_OK);
    EXPECT_EQ(out.verdict, PMVP_SYSREG_PERMITTED);
    EXPECT_EQ(v, 31250u);
    EXPECT_EQ(out.esr, 0u);
}

// EL2Enabled() has one answer for the counting side and the access side:
// at Secure EL1 with FEAT_SEL2, SCR_EL3.EEL2 (a PE control) decides whether
// HPMN limits what PMCR.N shows and what PMCR.P resets, whether the write
// is an MSR or the kernel's own PMCR_EL0 input.
TEST_F(IssSupport, SecureEl2EnabledBySCR_EL3_EEL2ForEveryPath)
{
    cfg.feat_sel2 = true;
    init();
    for (bool eel2 : { false, true }) {
        for (bool msr : { false, true }) {
            pmvp_pmu_controls ctl{};
            ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 2);
            ctl.scr_el3 = eel2 ? PMVP_SCR_EL3_EEL2 : 0;
            ASSERT_EQ(pmvp_core_set_controls(&core, 0, &ctl, 0), PMVP_OK);
            context(0, 1, PMVP_SECURE, 0);
            for (unsigned n = 0; n < cfg.num_counters; n++)
                write(0, PMVP_PMEVCNTR_EL0, 100 + n, 0, n);
            pmvp_sysreg_execution out{};
            uint64_t v = PMVP_PMCR_EL0_P;
            if (msr) {
                ASSERT_EQ(exec(true, kPmcr, 0, v, out, 0), PMVP_OK);
                ASSERT_EQ(out.verdict, PMVP_SYSREG_PERMITTED);
            } else {
                write(0, PMVP_PMCR_EL0, v, 0);
            }
            unsigned accessible = eel2 ? 2 : cfg.num_counters;
            for (unsigned n = 0; n < cfg.num_counters; n++)
                EXPECT_EQ(read(0, PMVP_PMEVCNTR_EL0, 0, n), n < accessible ? 0u : 100u + n)
                    << "EEL2 " << eel2 << (msr ? " MSR" : " input") << " counter " << n;
            ASSERT_EQ(exec(false, kPmcr, 0, v, out, 0), PMVP_OK);
            EXPECT_EQ(PMVP_FIELD_GET(PMVP_PMCR_EL0_N, v), accessible) << "EEL2 " << eel2;
        }
    }
}

TEST_F(IssSupport, RefusedAtEl0WithTheSyndromeAndNothingChanged)
{
    init();
    context(0, 0, PMVP_NONSECURE, 0);  // PMUSERENR_EL0 is 0: EL0 has no access
    pmvp_sysreg_execution out{};
    uint64_t v = 0x1234;
    // MRS X5, PMCCNTR_EL0: trapped to EL1 with EC 0x18 (D24.5: PMUSERENR_EL0.EN == 0).
    ASSERT_EQ(exec(false, kPmccntr, 5, v, out, 10 * kNs), PMVP_OK);
    EXPECT_EQ(out.verdict, PMVP_SYSREG_TRAP);
    EXPECT_EQ(out.target_el, 1u);
    EXPECT_EQ(out.esr, pmvp_sysreg_trap_esr(false, 3, 3, 9, 13, 0, 5));
    EXPECT_EQ(v, 0x1234u);  // no value read
    // PMINTENSET_EL1 is UNDEFINED at EL0: EC 0x00, IL 1, to EL1.
    v = 1;
    ASSERT_EQ(exec(true, kPmintenset, 0, v, out, 10 * kNs), PMVP_OK);
    EXPECT_EQ(out.verdict, PMVP_SYSREG_UNDEFINED);
    EXPECT_EQ(out.target_el, 1u);
    EXPECT_EQ(out.esr, 0x02000000u);
    context(0, 1, PMVP_NONSECURE, 20 * kNs);
    EXPECT_EQ(read(0, PMVP_PMINTENSET_EL1, 20 * kNs), 0u);
}

TEST_F(IssSupport, El0ExceptionsGoToEl2UnderHcrTge)
{
    init();
    context(0, 0, PMVP_NONSECURE, 0);
    pmvp_sysreg_context higher{};
    higher.hcr_el2 = PMVP_HCR_EL2_TGE;
    pmvp_sysreg_execution out{};
    uint64_t v = 0;
    ASSERT_EQ(exec(false, kPmintenset, 0, v, out, 0, &higher), PMVP_OK);
    EXPECT_EQ(out.verdict, PMVP_SYSREG_UNDEFINED);
    EXPECT_EQ(out.target_el, 2u);
    ASSERT_EQ(exec(false, kPmccntr, 0, v, out, 0, &higher), PMVP_OK);
    EXPECT_EQ(out.verdict, PMVP_SYSREG_TRAP);
    EXPECT_EQ(out.target_el, 2u);
}

TEST_F(IssSupport, TrapToEl2CarriesTheMsrMrsSyndrome)
{
    init();
    controls(0, PMVP_MDCR_EL2_TPM | PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, cfg.num_counters), 0, 0);
    pmvp_sysreg_execution out{};
    uint64_t v = 0;
    // MRS X7, PMEVCNTR3_EL0 at EL1 with MDCR_EL2.TPM: EC 0x18 to EL2.
    ASSERT_EQ(exec(false, kPmevcntr3, 7, v, out, 0), PMVP_OK);
    EXPECT_EQ(out.verdict, PMVP_SYSREG_TRAP);
    EXPECT_EQ(out.target_el, 2u);
    // EC 0x18 << 26 | IL | Op0 3 << 20 | Op2 3 << 17 | Op1 3 << 14 | CRn 14 << 10 | Rt 7 << 5 | CRm 8 << 1 | read
    const uint64_t esr =
        0x18ull << 26 | 1ull << 25 | 3ull << 20 | 3ull << 17 | 3ull << 14 | 14ull << 10 | 7ull << 5 | 8ull << 1 | 1;
    EXPECT_EQ(out.esr, esr);
    EXPECT_EQ(out.esr, 0x6236F8F1u);
    // The same as an MSR from XZR: Direction 0, Rt 31.
    ASSERT_EQ(exec(true, kPmevcntr3, 31, v, out, 0), PMVP_OK);
    EXPECT_EQ(out.esr, (esr & ~1ull & ~(0x1Full << 5)) | 31ull << 5);
}

TEST_F(IssSupport, WriteOnlyAndUnknownEncodings)
{
    init();
    pmvp_sysreg_execution out{};
    uint64_t v = 0;
    // MRS of PMSWINC_EL0 is UNDEFINED; the MSR increments a SW_INCR counter.
    ASSERT_EQ(exec(false, kPmswinc, 0, v, out, 0), PMVP_OK);
    EXPECT_EQ(out.verdict, PMVP_SYSREG_UNDEFINED);
    program(0, 2, PMVP_EV_SW_INCR);
    v = 1u << 2;
    ASSERT_EQ(exec(true, kPmswinc, 0, v, out, 5 * kNs), PMVP_OK);
    ASSERT_EQ(exec(true, kPmswinc, 0, v, out, 6 * kNs), PMVP_OK);
    EXPECT_EQ(counter(0, 2, 7 * kNs), 2u);
    // MIDR_EL1 is not the monitors': the ISS executes it itself.
    EXPECT_EQ(exec(false, kMidr, 0, v, out, 8 * kNs), PMVP_ERR_REGISTER);
    EXPECT_EQ(exec(false, kPmcr, 32, v, out, 8 * kNs), PMVP_ERR_VALUE);
}

TEST_F(IssSupport, ARefusalFromThePastIsAnErrorAndMovesNothing)
{
    init();
    context(0, 0, PMVP_NONSECURE, 100 * kNs);
    pmvp_sysreg_execution out{};
    uint64_t v = 0;
    EXPECT_EQ(exec(false, kPmccntr, 0, v, out, 50 * kNs), PMVP_ERR_PAST);
    // A refused access at a later instant does not move the core's present.
    ASSERT_EQ(exec(false, kPmccntr, 0, v, out, 1000 * kNs), PMVP_OK);
    EXPECT_EQ(out.verdict, PMVP_SYSREG_TRAP);
    context(0, 1, PMVP_NONSECURE, 500 * kNs);
}

TEST_F(IssSupport, IdFieldsFollowTheConfiguration)
{
    uint64_t f = 0, m = 0;
    // Defaults: PMUv3p5, FEAT_MTPMU, FEAT_HPMN0, Debugv8p4, AMUv1p1, EL2 and EL3 AArch64 only,
    // AArch32 at EL0.
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 5, 0, &f, &m), PMVP_OK);  // ID_AA64DFR0_EL1
    EXPECT_EQ(m, 0xF00F00000F0F0F0Full);
    EXPECT_EQ(f, 0x1001000000000609ull);
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 4, 0, &f, &m), PMVP_OK);  // ID_AA64PFR0_EL1
    EXPECT_EQ(f, 0x0000200000001112ull);
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 1, 2, &f, &m), PMVP_OK);  // ID_DFR0_EL1.PerfMon
    EXPECT_EQ(f, 0x06000000u);
    EXPECT_EQ(m, 0x0F000000u);

    // PMUv3p4 without EL2 and EL3: AMUv1 without AMUv1p1, no FEAT_MTPMU or
    // FEAT_HPMN0 (later features, off for this version).
    cfg.pmu_version = PMVP_PMUV3P4;
    pmvp_core_config_limit_to_version(&cfg);
    cfg.have_el2 = cfg.have_el3 = false;
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 5, 0, &f, &m), PMVP_OK);
    EXPECT_EQ(f, 0x000F000000000509ull);  // Debugv8p4, PMUv3p4, MTPMU 0b1111: PMEVTYPER.MT is RES0
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 4, 0, &f, &m), PMVP_OK);
    EXPECT_EQ(f, 0x0000100000000012ull);                                  // AMUv1, no EL2 or EL3
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 3, 5, &f, &m), PMVP_OK);  // ID_DFR1_EL1
    EXPECT_EQ(f, 0xF0u);
    // PMUv3: Debugv8, PerfMon 0b0011.
    cfg.pmu_version = PMVP_PMUV3;
    pmvp_core_config_limit_to_version(&cfg);
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 5, 0, &f, &m), PMVP_OK);
    EXPECT_EQ(f, 0x000F000000000106ull);
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 1, 2, &f, &m), PMVP_OK);
    EXPECT_EQ(f, 0x03000000u);
    // FEAT_EBEP and FEAT_SEBEP.
    pmvp_core_config_default(&cfg);
    cfg.feat_ebep = cfg.feat_sebep = true;
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 5, 0, &f, &m), PMVP_OK);
    EXPECT_EQ(f >> 24 & 0xF, 1u);                                         // SEBEP
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 5, 1, &f, &m), PMVP_OK);  // ID_AA64DFR1_EL1.EBEP
    EXPECT_EQ(f, 1ull << 48);
    // FEAT_PMUv3_ICNTR: ID_AA64DFR1_EL1.PMICNTR [39:36].
    pmvp_core_config_default(&cfg);
    cfg.feat_pmuv3_icntr = true;
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 5, 1, &f, &m), PMVP_OK);
    EXPECT_EQ(f, 1ull << 36);
    EXPECT_EQ(m & (0xFull << 36), 0xFull << 36);
    EXPECT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 0, 0, &f, &m), PMVP_ERR_REGISTER);  // MIDR_EL1
    EXPECT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 5, 0, nullptr, &m), PMVP_ERR_NULL);
}

// ---- the occurrences of an event up to the next interrupting overflow

class EventsToInterrupt : public Kernel {
protected:
    uint64_t left(unsigned pe, uint16_t event, pmvp_time t)
    {
        uint64_t n = 0;
        EXPECT_EQ(pmvp_core_events_to_interrupt(&core, pe, event, t, &n), PMVP_OK);
        // Asked among others in one call, the same answer for each.
        const uint16_t events[] = { 0x0021 /* BR_RETIRED */, event, PMVP_EV_INST_RETIRED };
        uint64_t each[3] = {};
        EXPECT_EQ(pmvp_core_events_to_interrupt_each(&core, pe, events, 3, t, each), PMVP_OK);
        EXPECT_EQ(each[1], n);
        for (unsigned i : { 0u, 2u }) {
            uint64_t alone = 0;
            EXPECT_EQ(pmvp_core_events_to_interrupt(&core, pe, events[i], t, &alone), PMVP_OK);
            EXPECT_EQ(each[i], alone);
        }
        return n;
    }
    void report(unsigned pe, uint16_t event, uint64_t n, pmvp_time t)
    {
        ASSERT_EQ(pmvp_core_report(&core, pe, event, n, t), PMVP_OK);
    }
};

TEST_F(EventsToInterrupt, ExactlyTheOccurrenceThatOverflows)
{
    init();
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 0), PMVP_EVENTS_NEVER);  // nothing counts
    program(0, 1, PMVP_EV_INST_RETIRED);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFull - 999, 0, 1);
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 0), PMVP_EVENTS_NEVER);  // no interrupt request
    write(0, PMVP_PMINTENSET_EL1, 1u << 1, 0);
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 0), 1000u);
    report(0, PMVP_EV_INST_RETIRED, 999, 10 * kNs);
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 10 * kNs), 1u);
    EXPECT_FALSE(irq(0, 10 * kNs));
    report(0, PMVP_EV_INST_RETIRED, 1, 11 * kNs);
    EXPECT_TRUE(irq(0, 11 * kNs));
    // Its flag is set: the next overflow raises nothing new.
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 11 * kNs), PMVP_EVENTS_NEVER);
    write(0, PMVP_PMOVSCLR_EL0, 1u << 1, 12 * kNs);
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 12 * kNs), 1ull << 32);
    // The nearest of two counters; another event is not affected.
    program(0, 4, PMVP_EV_INST_RETIRED, 0, 12 * kNs);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFF0ull, 12 * kNs, 4);
    write(0, PMVP_PMINTENSET_EL1, 1u << 4, 12 * kNs);
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 12 * kNs), 16u);
    EXPECT_EQ(left(0, 0x0021 /* BR_RETIRED */, 12 * kNs), PMVP_EVENTS_NEVER);
}

TEST_F(EventsToInterrupt, LongCountersFilteringAndDisable)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    write(0, PMVP_PMINTENSET_EL1, 1u, 0);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | PMVP_PMCR_EL0_LP, 0);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFFFFFFF00ull, 0, 0);
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 0), 256u);  // overflow at bit 63 (PMCR.LP)
    // PMEVTYPER.U filters EL0 out: an EL0 PE's occurrences reach no counter.
    write(0, PMVP_PMEVTYPER_EL0, PMVP_EV_INST_RETIRED | PMVP_PMEVTYPER_EL0_U, 0, 0);
    context(0, 0, PMVP_NONSECURE, 0);
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 0), PMVP_EVENTS_NEVER);
    context(0, 1, PMVP_NONSECURE, 0);
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 0), 256u);
    write(0, PMVP_PMCR_EL0, PMVP_PMCR_EL0_LP, 0);  // PMCR.E = 0
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 0), PMVP_EVENTS_NEVER);
}

TEST_F(EventsToInterrupt, AChainedPairStopsAtTheHighCountersOverflow)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    program(0, 1, PMVP_EV_CHAIN);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFF00ull, 0, 0);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFEull, 0, 1);
    write(0, PMVP_PMINTENSET_EL1, 1u << 1, 0);  // only the high half interrupts
    // 256 to the first wrap of the low half, then 2^32 more for the second.
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 0), 256u + (1ull << 32));
    report(0, PMVP_EV_INST_RETIRED, 256 + (1ull << 32) - 1, kNs);
    EXPECT_FALSE(irq(0, kNs));
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, kNs), 1u);
    report(0, PMVP_EV_INST_RETIRED, 1, 2 * kNs);
    EXPECT_TRUE(irq(0, 2 * kNs));
}

TEST_F(EventsToInterrupt, MtOneCountsTheOtherThreadsOccurrences)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_MT);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFull - 49, 0, 0);
    write(0, PMVP_PMINTENSET_EL1, 1u, 0);
    EXPECT_EQ(left(1, PMVP_EV_INST_RETIRED, 0), 50u);  // PE 1's occurrences reach PE 0's counter
    report(1, PMVP_EV_INST_RETIRED, 20, kNs);
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, kNs), 30u);
    write(0, PMVP_PMEVTYPER_EL0, PMVP_EV_INST_RETIRED, kNs, 0);  // MT = 0
    EXPECT_EQ(left(1, PMVP_EV_INST_RETIRED, kNs), PMVP_EVENTS_NEVER);
}

// The batch's refusals: a bad call before any answer is written, an event
// that cannot be reported after the answers for those before it.
TEST_F(EventsToInterrupt, EachRefusesAtTheFirstBadEvent)
{
    init();
    program(0, 1, PMVP_EV_INST_RETIRED);
    write(0, PMVP_PMINTENSET_EL1, 1u << 1, 0);
    const uint16_t good[] = { PMVP_EV_INST_RETIRED }, bad[] = { PMVP_EV_INST_RETIRED, PMVP_EV_CPU_CYCLES };
    uint64_t counts[2] = { 7, 7 };
    EXPECT_EQ(pmvp_core_events_to_interrupt_each(&core, 0, bad, 2, kNs, counts), PMVP_ERR_EVENT);
    EXPECT_EQ(counts[0], 1ull << 32);
    EXPECT_EQ(counts[1], 7u);
    counts[0] = 7;
    EXPECT_EQ(pmvp_core_events_to_interrupt_each(&core, 1, good, 1, kNs, counts), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_core_events_to_interrupt_each(&core, 0, nullptr, 1, kNs, counts), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_events_to_interrupt_each(&core, 0, good, 1, kNs, nullptr), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_events_to_interrupt_each(&core, 0, good, 0, kNs, counts), PMVP_OK);
    EXPECT_EQ(counts[0], 7u);
    EXPECT_EQ(pmvp_core_events_to_interrupt_each(&core, 0, good, 1, kNs, counts), PMVP_OK);
    EXPECT_EQ(counts[0], 1ull << 32);
    state(0, PMVP_PE_OFF, 2 * kNs);
    EXPECT_EQ(pmvp_core_events_to_interrupt_each(&core, 0, good, 1, 2 * kNs, counts), PMVP_OK);
    EXPECT_EQ(counts[0], PMVP_EVENTS_NEVER);
    counts[0] = 7;
    EXPECT_EQ(pmvp_core_events_to_interrupt_each(&core, 0, good, 1, kNs, counts), PMVP_ERR_PAST);
    EXPECT_EQ(counts[0], 7u);
}

// The least over the PEs of what each can report: PE 0's own counter is
// nearest to its interrupt, PE 1 reaches only PE 0's MT == 1 counter and its
// own; a PE that is off counts for nothing; the answer follows the reports
// of either PE.
TEST_F(EventsToInterrupt, AnyPeTheLeastOverThePes)
{
    cfg.num_pes = 3;
    init();
    auto any = [&](uint16_t event, pmvp_time t) {
        uint64_t n = 0;
        EXPECT_EQ(pmvp_core_events_to_interrupt_any(&core, event, t, &n), PMVP_OK);
        return n;
    };
    EXPECT_EQ(any(PMVP_EV_INST_RETIRED, 0), PMVP_EVENTS_NEVER);
    program(0, 0, PMVP_EV_INST_RETIRED, PMVP_PMEVTYPER_EL0_MT);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFull - 99, 0, 0);
    program(0, 1, PMVP_EV_INST_RETIRED);
    write(0, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFull - 29, 0, 1);
    program(1, 0, PMVP_EV_INST_RETIRED);
    write(1, PMVP_PMEVCNTR_EL0, 0xFFFFFFFFull - 59, 0, 0);
    write(0, PMVP_PMINTENSET_EL1, 3u, 0);
    write(1, PMVP_PMINTENSET_EL1, 1u, 0);
    EXPECT_EQ(left(1, PMVP_EV_INST_RETIRED, 0), 60u);
    EXPECT_EQ(left(2, PMVP_EV_INST_RETIRED, 0), 100u);
    EXPECT_EQ(any(PMVP_EV_INST_RETIRED, 0), 30u);
    report(0, PMVP_EV_INST_RETIRED, 29, kNs);  // PE 0's counters: 1 and 71 left
    EXPECT_EQ(any(PMVP_EV_INST_RETIRED, kNs), 1u);
    report(0, PMVP_EV_INST_RETIRED, 1, 2 * kNs);  // counter 1 overflows: its flag set
    EXPECT_EQ(any(PMVP_EV_INST_RETIRED, 2 * kNs), 60u);
    report(1, PMVP_EV_INST_RETIRED, 20, 3 * kNs);  // PE 1's counter 40 left, PE 0's counter 0 50
    EXPECT_EQ(any(PMVP_EV_INST_RETIRED, 3 * kNs), 40u);
    state(1, PMVP_PE_OFF, 4 * kNs);  // PE 1 reports nothing; PE 0's and PE 2's reach counter 0
    EXPECT_EQ(any(PMVP_EV_INST_RETIRED, 4 * kNs), 50u);
    EXPECT_EQ(any(0x0021 /* BR_RETIRED */, 4 * kNs), PMVP_EVENTS_NEVER);
    uint64_t n = 7;
    EXPECT_EQ(pmvp_core_events_to_interrupt_any(&core, PMVP_EV_CPU_CYCLES, 4 * kNs, &n), PMVP_ERR_EVENT);
    EXPECT_EQ(pmvp_core_events_to_interrupt_any(&core, PMVP_EV_INST_RETIRED, 4 * kNs, nullptr), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_events_to_interrupt_any(&core, PMVP_EV_INST_RETIRED, 3 * kNs, &n), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_core_events_to_interrupt_any(nullptr, PMVP_EV_INST_RETIRED, 4 * kNs, &n), PMVP_ERR_NULL);
    EXPECT_EQ(n, 7u);
}

// A PE that is off reports nothing; asking for it leaves the report of the
// event refused, as it was (the question once cached a route that let the
// report count).
TEST_F(EventsToInterrupt, APeThatIsOffReportsNothing)
{
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    write(0, PMVP_PMINTENSET_EL1, 1u, 0);
    state(0, PMVP_PE_OFF, kNs);
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, kNs), PMVP_EVENTS_NEVER);
    EXPECT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 5, kNs), PMVP_ERR_PE_OFF);
    state(0, PMVP_PE_RUN, 2 * kNs);
    EXPECT_EQ(counter(0, 0, 2 * kNs), 0u);
    EXPECT_EQ(left(0, PMVP_EV_INST_RETIRED, 2 * kNs), 1ull << 32);
}

TEST_F(EventsToInterrupt, BadCalls)
{
    init();
    uint64_t n = 7;
    EXPECT_EQ(pmvp_core_events_to_interrupt(&core, 1, PMVP_EV_INST_RETIRED, 0, &n), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_core_events_to_interrupt(&core, 0, PMVP_EV_CPU_CYCLES, 0, &n), PMVP_ERR_EVENT);
    EXPECT_EQ(pmvp_core_events_to_interrupt(&core, 0, PMVP_EV_INST_RETIRED, 0, nullptr), PMVP_ERR_NULL);
    context(0, 1, PMVP_NONSECURE, 10 * kNs);
    EXPECT_EQ(pmvp_core_events_to_interrupt(&core, 0, PMVP_EV_INST_RETIRED, 5 * kNs, &n), PMVP_ERR_PAST);
    EXPECT_EQ(n, 7u);
}

}  // namespace
}  // namespace pmvp::test
