// SPDX-License-Identifier: Apache-2.0
// Bad input: every error code, and state left untouched by a failing call.
#include <cstring>
#include <string>

#include "fixture.h"
#include "pmvp/x86.h"

namespace pmvp::test {
namespace {

using Errors = Kernel;

// Why pmvp_core_init refuses the default configuration changed by `edit`
// ("" if it does not).
std::string refusal(pmvp_core &core, void (*edit)(pmvp_core_config &))
{
    pmvp_core_config c;
    pmvp_core_config_default(&c);
    edit(c);
    const char *why = nullptr;
    int err = pmvp_core_init_why(&core, &c, &why);
    EXPECT_EQ(err == PMVP_ERR_CONFIG, why != nullptr);
    EXPECT_EQ(pmvp_core_init(&core, &c), err);
    return err == PMVP_ERR_CONFIG ? std::string(why) : std::string();
}
bool refuses(pmvp_core &core, void (*edit)(pmvp_core_config &))
{
    return !refusal(core, edit).empty();
}

TEST_F(Errors, CallFromThePastIsRejectedAndChangesNothing)
{
    init();
    enable_cycle_counter(0);
    EXPECT_EQ(cycles(0, 100 * kNs), 100u);
    pmvp_core before;
    std::memcpy(&before, &core, sizeof core);
    uint64_t v;
    EXPECT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMCCNTR_EL0, 0, 50 * kNs, &v), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_pmu_write(&core, 0, PMVP_PMCR_EL0, 0, 0, 50 * kNs), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_core_set_clock(&core, 1, 50 * kNs), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_core_set_pe_state(&core, 0, PMVP_PE_WFI, 50 * kNs), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 1, 50 * kNs), PMVP_ERR_PAST);
    EXPECT_EQ(std::memcmp(&before, &core, sizeof core), 0);
    EXPECT_EQ(cycles(0, 200 * kNs), 200u);
}

TEST_F(Errors, OutOfRangeIndices)
{
    init();
    uint64_t v;
    EXPECT_EQ(pmvp_pmu_read(&core, 1, PMVP_PMCR_EL0, 0, 0, &v), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMEVCNTR_EL0, 6, 0, &v), PMVP_ERR_COUNTER);
    EXPECT_EQ(pmvp_pmu_write(&core, 0, PMVP_PMEVTYPER_EL0, 31, 0, 0), PMVP_ERR_COUNTER);
    EXPECT_EQ(pmvp_pmu_read(&core, 0, (pmvp_pmu_reg)999, 0, 0, &v), PMVP_ERR_REGISTER);
    EXPECT_EQ(pmvp_core_set_pe_state(&core, 9, PMVP_PE_RUN, 0), PMVP_ERR_PE);
    EXPECT_EQ(pmvp_core_set_pe_state(&core, 0, (pmvp_pe_state)7, 0), PMVP_ERR_VALUE);
    EXPECT_EQ(pmvp_core_set_active_thread(&core, 0, 0), PMVP_ERR_CONFIG);  // not SoEMT
}

TEST_F(Errors, NullPointers)
{
    init();
    EXPECT_EQ(pmvp_core_init(nullptr, &cfg), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_init(&core, nullptr), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMCR_EL0, 0, 0, nullptr), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_pmu_read(nullptr, 0, PMVP_PMCR_EL0, 0, 0, nullptr), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_set_context(&core, 0, nullptr, 0), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_next_event(&core, 0, nullptr), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_pmu_irq(&core, 0, 0, nullptr), PMVP_ERR_NULL);
}

// The defaults of a core whose PMU is `v`.
static void on_pmu(pmvp_pmu_version v, pmvp_core_config &c)
{
    c.pmu_version = v;
    pmvp_core_config_limit_to_version(&c);
}

// Each refusal names the field and the rule (pmvp_core_init_why).
TEST_F(Errors, ImpossibleConfigurations)
{
    auto why = [&](void (*edit)(pmvp_core_config &)) { return refusal(core, edit); };
    auto names = [](const std::string &why, const char *field) { return why.rfind(field, 0) == 0; };
    EXPECT_PRED2(names, why([](pmvp_core_config &c) { c.num_pes = 0; }), "num_pes: from 1 to PMVP_MAX_PES (8)");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) { c.num_pes = PMVP_MAX_PES + 1; }), "num_pes:");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) { c.num_counters = 32; }), "num_counters: at most 31");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) { c.pmu_version = (pmvp_pmu_version)3; }), "pmu_version:");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) { c.mt_policy = (pmvp_mt_policy)9; }), "mt_policy:");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     c.feat_rme = true;
                     c.have_el3 = false;
                 }),
                 "feat_sel2, feat_rme: Secure EL2 and the Realm Management Extension need have_el2 and have_el3");
    // A feature of a later architecture version than the PMU's.
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     on_pmu(PMVP_PMUV3P4, c);
                     c.feat_pmuv3p7 = true;
                 }),
                 "feat_pmuv3p7: FEAT_PMUv3p7 (Armv8.7) needs pmu_version PMUv3p5");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     on_pmu(PMVP_PMUV3, c);
                     c.feat_mtpmu = true;
                 }),
                 "feat_mtpmu: FEAT_MTPMU (Armv8.6) needs pmu_version PMUv3p5");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     on_pmu(PMVP_PMUV3, c);
                     c.pmu_ext_layout = PMVP_EXT64;
                 }),
                 "pmu_ext_layout: EXT64 (FEAT_PMUv3_EXT64, Armv8.8) needs pmu_version PMUv3p5");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     on_pmu(PMVP_PMUV3P4, c);
                     c.amu_ext_layout = PMVP_EXT64;
                 }),
                 "amu_ext_layout: EXT64 (FEAT_AMU_EXT64, Armv8.8) needs pmu_version PMUv3p5");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     on_pmu(PMVP_PMUV3P1, c);
                     c.feat_amuv1 = true;
                 }),
                 "feat_amuv1: FEAT_AMUv1 (Armv8.4) needs pmu_version PMUv3p4 or later");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     on_pmu(PMVP_PMUV3, c);
                     c.feat_debugv8p2 = true;
                 }),
                 "feat_debugv8p2: FEAT_Debugv8p2 (Armv8.2) needs pmu_version PMUv3p1 or later");
    // Code that sets pmu_version after the defaults is told the call that
    // gives that version's core, which pmvp_core_init() then takes.
    const std::string earlier = why([](pmvp_core_config &c) { c.pmu_version = PMVP_PMUV3; });
    EXPECT_NE(earlier.find("needs pmu_version PMUv3p"), std::string::npos) << earlier;
    EXPECT_NE(earlier.find("(pmvp_core_config_limit_to_version() turns off every feature pmu_version lacks)"),
              std::string::npos)
        << earlier;
    for (pmvp_pmu_version v : { PMVP_PMUV3, PMVP_PMUV3P1, PMVP_PMUV3P4 }) {
        pmvp_core_config c;
        pmvp_core_config_default(&c);
        on_pmu(v, c);
        EXPECT_EQ(pmvp_core_init(&core, &c), PMVP_OK) << v;
    }
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     c.num_counters = 0;
                     c.feat_hpmn0 = false;
                 }),
                 "num_counters: no event counters with EL2 needs FEAT_HPMN0");  // D13.1
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     c.el3_aarch32 = true;
                     c.have_aarch32 = false;
                 }),
                 "el1_aarch32, el2_aarch32, el3_aarch32: AArch32 needs have_aarch32");
    static const uint16_t common_reserved[] = { 0x4007 };  // reserved common number, not in D14.3
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     c.events = common_reserved;
                     c.num_events = 1;
                 }),
                 "events: a common event");
    static const uint16_t overflow_event[] = { 0x400D };  // PMU_OVFS is not generated by the kernel
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     c.events = overflow_event;
                     c.num_events = 1;
                 }),
                 "events: PMU_OVERFLOW is counted by the AMU only");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) {
                     c.feat_sebep = true;
                     c.feat_ebep = false;
                 }),
                 "feat_sebep: FEAT_SEBEP needs feat_ebep");
    EXPECT_PRED2(names, why([](pmvp_core_config &c) { c.inaccuracy.shadow_events = 4; }),
                 "inaccuracy.shadow_events, shadow_time: the shadow effect is FEAT_SEBEP's");
    EXPECT_EQ(why([](pmvp_core_config &) {}), "");
}

// Clocks: above 1 THz (PMVP_MAX_CLOCK_HZ) the edges of the representable
// time would not fit in 64 bits, so such a frequency is refused wherever it
// enters, and the core is left as it was. At 1 THz itself every edge is
// counted to the end of time and the overflow instant is exact: PMCCNTR
// (PMCR.LC) preset 1000 below 2^64 at 3 s overflows at 3 s + 1000 ps.
TEST_F(Errors, ClocksAbove1THzAreRefusedAnd1THzIsExact)
{
    auto rejects = [&](void (*edit)(pmvp_core_config &)) { return refuses(core, edit); };
    EXPECT_TRUE(rejects([](pmvp_core_config &c) { c.processor_hz = PMVP_MAX_CLOCK_HZ + 1; }));
    EXPECT_TRUE(rejects([](pmvp_core_config &c) { c.bus_hz = UINT64_C(1) << 63; }));
    EXPECT_TRUE(rejects([](pmvp_core_config &c) { c.system_counter_hz = UINT64_MAX; }));

    cfg.processor_hz = PMVP_MAX_CLOCK_HZ;
    init();
    enable_cycle_counter(0);
    constexpr pmvp_time k3s = 3000 * kMs;
    write(0, PMVP_PMCCNTR_EL0, ~UINT64_C(0) - 999, k3s);
    pmvp_core before;
    std::memcpy(&before, &core, sizeof core);
    EXPECT_EQ(pmvp_core_set_clock(&core, UINT64_C(1) << 63, k3s), PMVP_ERR_VALUE);
    EXPECT_EQ(pmvp_core_set_bus_clock(&core, PMVP_MAX_CLOCK_HZ + 1, k3s), PMVP_ERR_VALUE);
    EXPECT_EQ(pmvp_core_set_system_counter(&core, UINT64_MAX, k3s), PMVP_ERR_VALUE);
    EXPECT_EQ(std::memcmp(&before, &core, sizeof core), 0);
    pmvp_time when = 0;
    ASSERT_EQ(pmvp_core_next_event(&core, k3s, &when), PMVP_OK);
    EXPECT_EQ(when, k3s + 1000);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, k3s + 999), 0u);
    EXPECT_EQ(read(0, PMVP_PMOVSSET_EL0, k3s + 1000), PMVP_PMU_C);
    EXPECT_EQ(cycles(0, k3s + 1000), 0u);
    // 200 days at 1 THz: one edge per ps, no wrap.
    write(0, PMVP_PMCCNTR_EL0, 0, k3s + 1000);
    constexpr pmvp_time k200days = UINT64_C(200) * 86400 * 1000 * kMs;
    EXPECT_EQ(cycles(0, k3s + 1000 + k200days), k200days);

    pmvp_x86_config x;
    pmvp_x86_config_default(&x);
    pmvp_x86_core xc;
    x.core_hz = PMVP_MAX_CLOCK_HZ + 1;
    EXPECT_EQ(pmvp_x86_init(&xc, &x), PMVP_ERR_CONFIG);
    const char *why = nullptr;
    EXPECT_EQ(pmvp_x86_init_why(&xc, &x, &why), PMVP_ERR_CONFIG);
    EXPECT_STREQ(why, "core_hz, tsc_hz, xclk_hz: at most PMVP_MAX_CLOCK_HZ (1 THz)");
    x.core_hz = PMVP_MAX_CLOCK_HZ;
    ASSERT_EQ(pmvp_x86_init(&xc, &x), PMVP_OK);
    EXPECT_EQ(pmvp_x86_set_core_clock(&xc, UINT64_C(1) << 63, 0), PMVP_ERR_VALUE);
    EXPECT_EQ(xc.core_clock.hz, PMVP_MAX_CLOCK_HZ);
}

TEST_F(Errors, InvalidContexts)
{
    cfg.have_el2 = false;
    init();
    pmvp_context x{};
    x.el = 2;
    EXPECT_EQ(pmvp_core_set_context(&core, 0, &x, 0), PMVP_ERR_VALUE);  // no EL2
    x.el = 1;
    x.security = PMVP_REALM;
    EXPECT_EQ(pmvp_core_set_context(&core, 0, &x, 0), PMVP_ERR_VALUE);  // no RME
    x.el = 4;
    x.security = PMVP_NONSECURE;
    EXPECT_EQ(pmvp_core_set_context(&core, 0, &x, 0), PMVP_ERR_VALUE);
}

TEST_F(Errors, ReportsThatTheKernelCannotTake)
{
    const uint16_t events[] = { PMVP_EV_INST_RETIRED, PMVP_EV_CPU_CYCLES, PMVP_EV_STALL };
    cfg.events = events;
    cfg.num_events = 3;
    init();
    EXPECT_EQ(pmvp_core_report(&core, 0, 0x0004, 1, 0), PMVP_ERR_EVENT);              // not supported
    EXPECT_EQ(pmvp_core_report(&core, 0, PMVP_EV_CPU_CYCLES, 1, 0), PMVP_ERR_EVENT);  // counted by the kernel
    EXPECT_EQ(pmvp_core_set_level(&core, 0, PMVP_EV_INST_RETIRED, 1, 0), PMVP_ERR_EVENT);
    EXPECT_EQ(pmvp_core_set_level(&core, 0, PMVP_EV_STALL, 1, 0), PMVP_OK);
    state(0, PMVP_PE_OFF, 0);
    EXPECT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 1, 0), PMVP_ERR_PE_OFF);
}

// A report whose route is known takes the common case (no refusal call): it
// is refused as the first one was checked, after each change of the inputs
// that decide a refusal, and counts nothing then.
TEST_F(Errors, ReportsOnAKnownRouteAreRefusedAsTheFirst)
{
    cfg.num_pes = 2;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 5, 10), PMVP_OK);
    ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 5, 20), PMVP_OK);
    EXPECT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 1, 19), PMVP_ERR_PAST);
    EXPECT_EQ(pmvp_core_report(nullptr, 0, PMVP_EV_INST_RETIRED, 1, 20), PMVP_ERR_NULL);
    EXPECT_EQ(pmvp_core_report(&core, 2, PMVP_EV_INST_RETIRED, 1, 20), PMVP_ERR_PE);
    state(0, PMVP_PE_OFF, 30);
    EXPECT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 1, 30), PMVP_ERR_PE_OFF);
    state(0, PMVP_PE_RUN, 40);
    EXPECT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 1, 40), PMVP_OK);
    EXPECT_EQ(counter(0, 0, 40), 11u);
}

TEST_F(Errors, HpmnAboveNIsLoggedAndTreatedAsN)
{
    int logged = 0;
    cfg.log = [](void *user, unsigned, const char *) { ++*static_cast<int *>(user); };
    cfg.log_user = &logged;
    init();
    program(0, 5, PMVP_EV_CPU_CYCLES);
    controls(0, PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, 20), 0, 0);
    EXPECT_EQ(logged, 1);
    EXPECT_EQ(counter(0, 5, 1 * kUs), 1000u);  // first range: PMCR.E enables it
}

TEST_F(Errors, StrerrorCoversEveryCode)
{
    for (int e = PMVP_OK; e >= PMVP_ERR_CHECKPOINT; e--)
        EXPECT_STRNE(pmvp_strerror(e), "unknown error") << e;
    EXPECT_STREQ(pmvp_strerror(42), "unknown error");
}

}  // namespace
}  // namespace pmvp::test
