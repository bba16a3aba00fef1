// SPDX-License-Identifier: Apache-2.0
// PMU snapshots (FEAT_PMUv3_SS, D13.9): Capture events at an exact instant,
// Table D13-10's controls, the OS Lock and Debug state, PMU_SNAPSHOT, the
// external request and the external view (I5.2).
#include "fixture.h"

#include <string>
#include <vector>

#include "pmvp/checkpoint.h"
#include "pmvp/ext.h"
#include "pmvp/sysreg.h"

namespace pmvp::test {
namespace {

class Snapshot : public Kernel {
protected:
    void SetUp() override
    {
        Kernel::SetUp();
        cfg.feat_pmuv3_ss = true;
        cfg.feat_pmuv3_icntr = true;
        cfg.processor_hz = 1000000000;
        cfg.num_counters = 4;
    }
    // Counters 0..2 count CPU_CYCLES, counter 3 PMU_SNAPSHOT, with PMCCNTR
    // and PMICNTR; Capture events allowed by MDCR_EL3.PMSSE = 0b11.
    void init()
    {
        Kernel::init();
        context(0, 1, PMVP_NONSECURE, 0);
        controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4), PMVP_FIELD_PREP(PMVP_MDCR_EL3_PMSSE, 3), 0);
        for (unsigned n = 0; n < 3; n++)
            program(0, n, PMVP_EV_CPU_CYCLES);
        program(0, 3, PMVP_EV_PMU_SNAPSHOT);
        write(0, PMVP_PMCNTENSET_EL0, PMVP_PMU_C | PMVP_PMU_F0, 0);
    }
    void capture(pmvp_time t) { write(0, PMVP_PMSSCR_EL1, PMVP_PMSSCR_EL1_SS, t); }
    uint64_t saved(unsigned n, pmvp_time t) { return read(0, PMVP_PMEVCNTSVR_EL1, t, n); }
};

// D13.9: the counters at the Capture event's instant; PMSSCR_EL1.{NC, SS}
// {0, 0}; the snapshot registers keep them while the counters count on.
TEST_F(Snapshot, D13_9_ACaptureTakesTheCountersAtItsInstant)
{
    init();
    EXPECT_EQ(read(0, PMVP_PMSSCR_EL1, 0), PMVP_PMSSCR_EL1_NC);  // NC resets to 1
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 321, 1 * kUs), PMVP_OK);
    write(0, PMVP_PMEVCNTR_EL0, 100000, 2 * kUs, 2);
    capture(7 * kUs);
    EXPECT_EQ(read(0, PMVP_PMSSCR_EL1, 7 * kUs), 0u);
    EXPECT_EQ(saved(0, 20 * kUs), 7000u);
    EXPECT_EQ(saved(1, 20 * kUs), 7000u);
    EXPECT_EQ(saved(2, 20 * kUs), 105000u);
    EXPECT_EQ(read(0, PMVP_PMCCNTSVR_EL1, 20 * kUs), 7000u);
    EXPECT_EQ(read(0, PMVP_PMICNTSVR_EL1, 20 * kUs), 321u);
    EXPECT_EQ(counter(0, 0, 20 * kUs), 20000u);
    // PMU_SNAPSHOT is generated after the counters are captured.
    EXPECT_EQ(saved(3, 20 * kUs), 0u);
    EXPECT_EQ(counter(0, 3, 20 * kUs), 1u);
    // The snapshot registers are read-only; a write of 0 to SS does nothing.
    uint64_t v = 0;
    EXPECT_EQ(pmvp_pmu_write(&core, 0, PMVP_PMCCNTSVR_EL1, 0, 5, 21 * kUs), PMVP_ERR_READ_ONLY);
    write(0, PMVP_PMSSCR_EL1, 0, 21 * kUs);
    EXPECT_EQ(counter(0, 3, 21 * kUs), 1u);
    ASSERT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMCCNTSVR_EL1, 0, 21 * kUs, &v), PMVP_OK);
    EXPECT_EQ(v, 7000u);
    // The external request captures the same way.
    ASSERT_EQ(pmvp_core_snapshot_request(&core, 0, 30 * kUs), PMVP_OK);
    EXPECT_EQ(saved(0, 31 * kUs), 30000u);
    EXPECT_EQ(saved(3, 31 * kUs), 1u);
    EXPECT_EQ(counter(0, 3, 31 * kUs), 2u);
}

// Table D13-10: MDCR_EL3.PMSSE decides unless 0b01, then MDCR_EL2.PMSSE
// (even with EL2 disabled in the current Security state) unless 0b01, then
// PMECR_EL1.SSE. Disabled: SS ignores the write; prohibited: {NC, SS} =
// {1, 0} and nothing captured; allowed: captured, {0, 0}.
TEST_F(Snapshot, TableD13_10_TheControlsOfCaptureEvents)
{
    enum Outcome { DISABLED, PROHIBITED, ALLOWED };
    auto expected = [](unsigned el3, unsigned el2, unsigned sse) {
        unsigned v = el3 == 1 ? (el2 == 1 ? sse : el2) : el3;
        return v == 0 ? DISABLED : v == 3 ? ALLOWED : PROHIBITED;  // PMECR_EL1.SSE 0b01 (reserved): prohibited
    };
    for (bool secure : { false, true })
        for (unsigned el3 = 0; el3 < 4; el3++)
            for (unsigned el2 = 0; el2 < 4; el2++)
                for (unsigned sse = 0; sse < 4; sse++) {
                    init();
                    // Secure EL1 without FEAT_SEL2: EL2 is disabled there, and still decides.
                    context(0, 1, secure ? PMVP_SECURE : PMVP_NONSECURE, 0);
                    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4) | PMVP_FIELD_PREP(PMVP_MDCR_EL2_PMSSE, el2),
                             PMVP_FIELD_PREP(PMVP_MDCR_EL3_PMSSE, el3) | PMVP_MDCR_EL3_SPME, 0);
                    write(0, PMVP_PMECR_EL1, PMVP_FIELD_PREP(PMVP_PMECR_EL1_SSE, sse), 0);
                    EXPECT_EQ(read(0, PMVP_PMECR_EL1, 0), PMVP_FIELD_PREP(PMVP_PMECR_EL1_SSE, sse));
                    capture(3 * kUs);
                    Outcome want = expected(el3, el2, sse);
                    SCOPED_TRACE("MDCR_EL3.PMSSE " + std::to_string(el3) + " MDCR_EL2.PMSSE " + std::to_string(el2) +
                                 " PMECR_EL1.SSE " + std::to_string(sse) + (secure ? " Secure" : ""));
                    // The write stores NC = 0 (a RW field): disabled, it is what remains.
                    EXPECT_EQ(read(0, PMVP_PMSSCR_EL1, 4 * kUs), want == PROHIBITED ? PMVP_PMSSCR_EL1_NC : 0);
                    EXPECT_EQ(saved(0, 4 * kUs), want == ALLOWED ? 3000u : 0u);
                    EXPECT_EQ(counter(0, 3, 4 * kUs), want == ALLOWED ? 1u : 0u);
                }
}

// Without EL3 MDCR_EL2.PMSSE decides; without EL2 either, PMECR_EL1.SSE.
TEST_F(Snapshot, RYWLFL_TheLowerControlsDecideWithoutTheHigherLevels)
{
    cfg.have_el3 = false;
    init();
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 4) | PMVP_FIELD_PREP(PMVP_MDCR_EL2_PMSSE, 2), 0, 0);
    capture(1 * kUs);
    EXPECT_EQ(read(0, PMVP_PMSSCR_EL1, 1 * kUs), PMVP_PMSSCR_EL1_NC);
    cfg.have_el2 = false;
    init();
    controls(0, 0, 0, 0);
    write(0, PMVP_PMECR_EL1, PMVP_FIELD_PREP(PMVP_PMECR_EL1_SSE, 3), 0);
    capture(2 * kUs);
    EXPECT_EQ(read(0, PMVP_PMSSCR_EL1, 2 * kUs), 0u);
    EXPECT_EQ(saved(0, 2 * kUs), 2000u);
}

// RTSYTY: the OS Lock and Debug state prohibit Capture events; Debug state
// allows them where the PE does (ss_capture_in_debug). A PE that is off
// takes none (RSCLCQ).
TEST_F(Snapshot, RTSYTY_TheOsLockAndDebugStateProhibit)
{
    init();
    ASSERT_EQ(pmvp_core_set_control(&core, 0, PMVP_CTL_OS_LOCK, 1, 1 * kUs), PMVP_OK);
    capture(2 * kUs);
    EXPECT_EQ(read(0, PMVP_PMSSCR_EL1, 2 * kUs), PMVP_PMSSCR_EL1_NC);
    EXPECT_EQ(saved(0, 2 * kUs), 0u);
    ASSERT_EQ(pmvp_core_set_control(&core, 0, PMVP_CTL_OS_LOCK, 0, 3 * kUs), PMVP_OK);
    pmvp_context halted{};
    halted.el = 1;
    halted.security = PMVP_NONSECURE;
    halted.halted = true;
    ASSERT_EQ(pmvp_core_set_context(&core, 0, &halted, 4 * kUs), PMVP_OK);
    capture(5 * kUs);
    EXPECT_EQ(read(0, PMVP_PMSSCR_EL1, 5 * kUs), PMVP_PMSSCR_EL1_NC);
    cfg.ss_capture_in_debug = true;
    init();
    ASSERT_EQ(pmvp_core_set_context(&core, 0, &halted, 4 * kUs), PMVP_OK);
    capture(5 * kUs);
    EXPECT_EQ(read(0, PMVP_PMSSCR_EL1, 5 * kUs), 0u);
    EXPECT_EQ(saved(0, 5 * kUs), 4000u);  // CPU_CYCLES does not count in Debug state
    EXPECT_EQ(read(0, PMVP_PMCCNTSVR_EL1, 5 * kUs), 4000u);
    EXPECT_EQ(counter(0, 3, 5 * kUs), 0u);  // PMU_SNAPSHOT: none in Debug state (pmvp's choice)
    state(0, PMVP_PE_OFF, 6 * kUs);
    EXPECT_EQ(pmvp_core_snapshot_request(&core, 0, 7 * kUs), PMVP_OK);
    state(0, PMVP_PE_RUN, 8 * kUs);
    EXPECT_EQ(saved(0, 8 * kUs), 4000u);
}

// I5.2: the snapshot registers at 0x600 + 8n, 0x6F8 and 0x700, PMSSCR_EL1
// at 0xE30, read-only, and readable while the OS Lock is locked (IKGJMV).
TEST_F(Snapshot, I5_2_TheExternalFrameShowsThemThroughTheOsLock)
{
    init();
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 9, 1 * kUs), PMVP_OK);
    capture(2 * kUs);
    ASSERT_EQ(pmvp_core_set_control(&core, 0, PMVP_CTL_OS_LOCK, 1, 3 * kUs), PMVP_OK);
    pmvp_ext_access a{ PMVP_SECURE, false };
    auto rd = [&](uint32_t off, unsigned size) {
        uint64_t v = 0;
        EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, off, size, &a, 4 * kUs, &v, nullptr), PMVP_OK)
            << std::hex << off;
        return v;
    };
    EXPECT_EQ(rd(0x600, 8), 2000u);
    EXPECT_EQ(rd(0x608, 4), 2000u);
    EXPECT_EQ(rd(0x6F8, 8), 2000u);
    EXPECT_EQ(rd(0x700, 8), 9u);
    EXPECT_EQ(rd(0xE30, 8), 0u);
    uint64_t v = 0;
    EXPECT_EQ(pmvp_ext_read(&core, 0, PMVP_FRAME_PMU, 0x0F8, 8, &a, 4 * kUs, &v, nullptr), PMVP_ERR_LOCKED);
    enum pmvp_ext_effect e;
    ASSERT_EQ(pmvp_ext_write(&core, 0, PMVP_FRAME_PMU, 0x600, 8, 1, &a, 4 * kUs, &e), PMVP_OK);
    EXPECT_EQ(e, PMVP_EXT_IGNORED);
}

TEST_F(Snapshot, ACheckpointKeepsTheSnapshot)
{
    init();
    capture(5 * kUs);
    save_and_restore();
    EXPECT_EQ(saved(1, 6 * kUs), 5000u);
    EXPECT_EQ(read(0, PMVP_PMSSCR_EL1, 6 * kUs), 0u);
    // A core configured otherwise refuses it: the configuration's
    // fingerprint holds the snapshot's choices.
    std::vector<uint8_t> buf(pmvp_core_checkpoint_size(&core));
    ASSERT_EQ(pmvp_core_save(&core, buf.data(), buf.size()), PMVP_OK);
    for (bool in_debug : { false, true }) {
        pmvp_core_config other_cfg = cfg;
        other_cfg.ss_capture_in_debug = in_debug;
        other_cfg.feat_pmuv3_ss = in_debug;  // without the feature, or allowing Debug state
        pmvp_core other;
        ASSERT_EQ(pmvp_core_init(&other, &other_cfg), PMVP_OK);
        EXPECT_NE(pmvp_core_restore(&other, buf.data(), buf.size(), nullptr), PMVP_OK) << in_debug;
    }
}

TEST(SnapshotConfig, RefusalsAndAbsence)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.ss_capture_in_debug = true;
    pmvp_core core;
    const char *why = nullptr;
    EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_ERR_CONFIG);
    ASSERT_NE(why, nullptr);
    EXPECT_STREQ(why, "ss_capture_in_debug: Capture events need FEAT_PMUv3_SS (feat_pmuv3_ss)");
    cfg.ss_capture_in_debug = false;
    ASSERT_EQ(pmvp_core_init(&core, &cfg), PMVP_OK);
    EXPECT_EQ(pmvp_core_snapshot_request(&core, 0, 0), PMVP_ERR_REGISTER);
    uint64_t fields = 0, mask = 0;  // ID_AA64DFR0_EL1.PMSS [19:16]: 0b0000, then 0b0001
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 5, 0, &fields, &mask), PMVP_OK);
    EXPECT_EQ(mask >> 16 & 0xF, 0xFu);
    EXPECT_EQ(fields >> 16 & 0xF, 0u);
    cfg.feat_pmuv3_ss = true;
    ASSERT_EQ(pmvp_id_fields_a64(&cfg, 3, 0, 0, 5, 0, &fields, &mask), PMVP_OK);
    EXPECT_EQ(fields >> 16 & 0xF, 1u);
    cfg.feat_pmuv3_ss = false;
    uint64_t v = 0;
    EXPECT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMCCNTSVR_EL1, 0, 0, &v), PMVP_ERR_REGISTER);
    cfg.pmu_version = PMVP_PMUV3P4;
    pmvp_core_config_limit_to_version(&cfg);
    cfg.feat_pmuv3_ss = true;
    EXPECT_EQ(pmvp_core_init_why(&core, &cfg, &why), PMVP_ERR_CONFIG);
    EXPECT_STREQ(why, "feat_pmuv3_ss: FEAT_PMUv3_SS (Armv8.9) needs pmu_version PMUv3p5"
                      " (pmvp_core_config_limit_to_version() turns off every feature pmu_version lacks)");
}

}  // namespace
}  // namespace pmvp::test
