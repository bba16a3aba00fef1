// SPDX-License-Identifier: Apache-2.0
// Shared set-up for the kernel's unit tests: a core built from a config,
// with helpers that fail the test on any error code.
#pragma once

#include <gtest/gtest.h>

#include <random>
#include <tuple>
#include <vector>

#include "pmvp/checkpoint.h"
#include "pmvp/core.h"
#include "pmvp/ebep.h"
#include "pmvp/error.h"
#include "pmvp/events.h"
#include "pmvp/fields.h"
#include "pmvp/pmu.h"
#include "pmvp/amu.h"

namespace pmvp::test {

constexpr pmvp_time kNs = 1000;
constexpr pmvp_time kUs = 1000 * kNs;
constexpr pmvp_time kMs = 1000 * kUs;
constexpr uint64_t kGHz = 1000000000;

// Every PMU and AMU System register of PE pe, every instance up to 32, as
// the pure query sees it at t: (register, instance, error, value), in order.
using RegisterImage = std::vector<std::tuple<int, unsigned, int, uint64_t>>;
inline RegisterImage every_register(const pmvp_core *c, unsigned pe, pmvp_time t)
{
    RegisterImage image;
    for (int r = 0; r < PMVP_PMU_NUM_REGS; r++)
        for (unsigned n = 0; n < (pmvp_pmu_reg_indexed((pmvp_pmu_reg)r) ? 32u : 1u); n++) {
            uint64_t v = 0;
            int err = pmvp_pmu_peek(c, pe, (pmvp_pmu_reg)r, n, t, &v);
            image.emplace_back(r, n, err, v);
        }
    for (int r = 0; r < PMVP_AMU_NUM_REGS; r++)
        for (unsigned n = 0; n < (pmvp_amu_reg_indexed((pmvp_amu_reg)r) ? 32u : 1u); n++) {
            uint64_t v = 0;
            int err = pmvp_amu_peek(c, pe, (pmvp_amu_reg)r, n, t, &v);
            image.emplace_back(PMVP_PMU_NUM_REGS + r, n, err, v);
        }
    return image;
}

// Writes a random value to every instance of every PMU and AMU System
// register of PE pe at t (those that take no write refuse it).
inline void scribble(pmvp_core *c, unsigned pe, pmvp_time t, std::mt19937_64 &rng)
{
    for (int r = 0; r < PMVP_PMU_NUM_REGS; r++)
        for (unsigned n = 0; n < (pmvp_pmu_reg_indexed((pmvp_pmu_reg)r) ? 32u : 1u); n++)
            (void)pmvp_pmu_write(c, pe, (pmvp_pmu_reg)r, n, rng(), t);
    for (int r = 0; r < PMVP_AMU_NUM_REGS; r++)
        for (unsigned n = 0; n < (pmvp_amu_reg_indexed((pmvp_amu_reg)r) ? 32u : 1u); n++)
            (void)pmvp_amu_write(c, pe, (pmvp_amu_reg)r, n, rng(), t);
}

// PMEVTYPER<n>'s threshold fields (D24.5.12), and TC's values: the
// comparison in TC[2:1]; TC[0] 1 counts 1 rather than V_B, or with TE
// chooses rising edges (kRising) over any (kBoth).
inline uint64_t tc(uint64_t v)
{
    return PMVP_FIELD_PREP(PMVP_PMEVTYPER_EL0_TC, v);
}
inline uint64_t th(uint64_t v)
{
    return PMVP_FIELD_PREP(PMVP_PMEVTYPER_EL0_TH, v);
}
inline uint64_t tlc(uint64_t v)
{
    return PMVP_FIELD_PREP(PMVP_PMEVTYPER_EL0_TLC, v);
}
constexpr uint64_t kTe = PMVP_PMEVTYPER_EL0_TE;
constexpr uint64_t kNe = 0b000, kEqCount = 0b011, kEq = 0b010, kGe = 0b100, kGeCount = 0b101, kLtCount = 0b111;
constexpr uint64_t kRising = 0b001, kBoth = 0b010, kFalling = 0b011;

class Kernel : public ::testing::Test {
protected:
    void SetUp() override { pmvp_core_config_default(&cfg); }

    void init()
    {
        ASSERT_EQ(pmvp_core_init(&core, &cfg), PMVP_OK);
        for (unsigned pe = 0; pe < cfg.num_pes; pe++) {
            // Let every PE's counters see the same MT enables as real firmware would set.
            pmvp_pmu_controls ctl{};
            ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, cfg.num_counters);
            ctl.mdcr_el3 = PMVP_MDCR_EL3_MTPME;
            ASSERT_EQ(pmvp_core_set_controls(&core, pe, &ctl, 0), PMVP_OK);
        }
    }
    void write(unsigned pe, pmvp_pmu_reg r, uint64_t v, pmvp_time t, unsigned n = 0)
    {
        ASSERT_EQ(pmvp_pmu_write(&core, pe, r, n, v, t), PMVP_OK) << pmvp_pmu_reg_name(r);
    }
    uint64_t read(unsigned pe, pmvp_pmu_reg r, pmvp_time t, unsigned n = 0)
    {
        uint64_t v = 0;
        EXPECT_EQ(pmvp_pmu_read(&core, pe, r, n, t, &v), PMVP_OK) << pmvp_pmu_reg_name(r);
        return v;
    }
    uint64_t cycles(unsigned pe, pmvp_time t) { return read(pe, PMVP_PMCCNTR_EL0, t); }
    uint64_t counter(unsigned pe, unsigned n, pmvp_time t) { return read(pe, PMVP_PMEVCNTR_EL0, t, n); }
    // Counter n of `pe` counts `event` (with extra PMEVTYPER bits), enabled with PMCR.E.
    void program(unsigned pe, unsigned n, uint16_t event, uint64_t extra = 0, pmvp_time t = 0)
    {
        write(pe, PMVP_PMEVTYPER_EL0, event | extra, t, n);
        write(pe, PMVP_PMCNTENSET_EL0, 1u << n, t);
        write(pe, PMVP_PMCR_EL0, read(pe, PMVP_PMCR_EL0, t) | PMVP_PMCR_EL0_E, t);
    }
    void enable_cycle_counter(unsigned pe, uint64_t pmcr_extra = PMVP_PMCR_EL0_LC, pmvp_time t = 0)
    {
        write(pe, PMVP_PMCNTENSET_EL0, PMVP_PMU_C, t);
        write(pe, PMVP_PMCR_EL0, PMVP_PMCR_EL0_E | pmcr_extra, t);
    }
    void state(unsigned pe, pmvp_pe_state s, pmvp_time t)
    {
        ASSERT_EQ(pmvp_core_set_pe_state(&core, pe, s, t), PMVP_OK);
    }
    void context(unsigned pe, uint8_t el, pmvp_security sec, pmvp_time t)
    {
        pmvp_context x{};
        x.el = el;
        x.security = (uint8_t)sec;
        ASSERT_EQ(pmvp_core_set_context(&core, pe, &x, t), PMVP_OK);
    }
    void controls(unsigned pe, uint64_t mdcr_el2, uint64_t mdcr_el3, pmvp_time t)
    {
        pmvp_pmu_controls ctl{};
        ctl.mdcr_el2 = mdcr_el2;
        ctl.mdcr_el3 = mdcr_el3;
        ASSERT_EQ(pmvp_core_set_controls(&core, pe, &ctl, t), PMVP_OK);
    }
    bool irq(unsigned pe, pmvp_time t)
    {
        bool level = false;
        EXPECT_EQ(pmvp_pmu_irq(&core, pe, t, &level), PMVP_OK);
        return level;
    }
    // The core replaced by one initialised afresh with cfg and restored from
    // the core's own checkpoint: what the checkpoint loses, a test sees lost.
    void save_and_restore()
    {
        std::vector<uint8_t> buf(pmvp_core_checkpoint_size(&core));
        ASSERT_EQ(pmvp_core_save(&core, buf.data(), buf.size()), PMVP_OK);
        pmvp_core restored{};
        ASSERT_EQ(pmvp_core_init(&restored, &cfg), PMVP_OK);
        ASSERT_EQ(pmvp_core_restore(&restored, buf.data(), buf.size(), nullptr), PMVP_OK);
        core = restored;
    }
    pmvp_time next_event(pmvp_time t)
    {
        pmvp_time when = 0;
        EXPECT_EQ(pmvp_core_next_event(&core, t, &when), PMVP_OK);
        return when;
    }

    pmvp_core_config cfg{};
    pmvp_core core{};
};

}  // namespace pmvp::test
