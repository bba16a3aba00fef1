// SPDX-License-Identifier: Apache-2.0
// The rate caches (count.c): every PE keeps its counters' rates, dropped by
// any input that changes what counts and updated in place by a level change.
// A core that uses them must count exactly as one whose rates are computed
// afresh at every step, whatever the inputs. And a level change brings only
// the counters that follow it to its instant (pmvp_pe.ahead): a core left
// so must count exactly as one brought whole to every input's instant.
#include <memory>
#include <random>
#include <vector>

#include "fixture.h"
#include "pmvp/checkpoint.h"

namespace pmvp::test {
namespace {

const uint16_t kEvents[] = { PMVP_EV_CPU_CYCLES,     PMVP_EV_INST_RETIRED, PMVP_EV_STALL_BACKEND,
                             PMVP_EV_STALL_FRONTEND, PMVP_EV_BUS_CYCLES,   PMVP_EV_STALL_BACKEND_MEM,
                             PMVP_EV_CHAIN,          PMVP_EV_SW_INCR };
const uint16_t kLevels[] = { PMVP_EV_STALL_BACKEND, PMVP_EV_STALL_FRONTEND, PMVP_EV_STALL_BACKEND_MEM };

// One random input at t to both cores.
void input(pmvp_core *c, std::mt19937_64 &rng, pmvp_time t)
{
    auto rnd = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
    unsigned pe = (unsigned)rnd(c->cfg.num_pes), n = (unsigned)rnd(c->cfg.num_counters);
    switch (rnd(11)) {
    case 0:
    case 1: (void)pmvp_core_set_level(c, pe, kLevels[rnd(3)], (uint32_t)rnd(3), t); break;
    case 2: (void)pmvp_core_set_pe_state(c, pe, (pmvp_pe_state)rnd(4), t); break;
    case 3: {
        pmvp_context x{};
        x.el = (uint8_t)rnd(2);
        x.security = rnd(2) ? PMVP_SECURE : PMVP_NONSECURE;
        (void)pmvp_core_set_context(c, pe, &x, t);
        break;
    }
    case 4: (void)pmvp_core_set_active_thread(c, pe, t); break;
    case 5: {
        uint64_t mt = rnd(2) ? PMVP_PMEVTYPER_EL0_MT : 0, u = rnd(3) == 0 ? PMVP_PMEVTYPER_EL0_U : 0;
        (void)pmvp_pmu_write(c, pe, PMVP_PMEVTYPER_EL0, n, kEvents[rnd(8)] | mt | u, t);
        break;
    }
    case 6:
        (void)pmvp_pmu_write(c, pe, rnd(2) ? PMVP_PMCNTENSET_EL0 : PMVP_PMCNTENCLR_EL0, 0,
                             (1u << n) | (rnd(2) ? PMVP_PMU_C : 0), t);
        break;
    case 7: (void)pmvp_pmu_write(c, pe, PMVP_PMCR_EL0, 0, PMVP_PMCR_EL0_E | (rnd(2) ? PMVP_PMCR_EL0_D : 0), t); break;
    case 8: (void)pmvp_pmu_write(c, pe, PMVP_PMCCFILTR_EL0, 0, rnd(2) ? PMVP_PMEVTYPER_EL0_P : 0, t); break;
    case 9:
        (void)pmvp_amu_write(c, pe, PMVP_AMEVTYPER1_EL0, (unsigned)rnd(2), kLevels[rnd(3)], t);
        (void)pmvp_amu_write(c, pe, rnd(2) ? PMVP_AMCNTENSET0_EL0 : PMVP_AMCNTENSET1_EL0, 0, rnd(16), t);
        break;
    default: (void)pmvp_core_report(c, pe, PMVP_EV_INST_RETIRED, rnd(100), t); break;
    }
}

// A core of 3 PEs and 6 counters with MT policy `mt`, PMUv3p5, 2 AMU
// auxiliary counters.
pmvp_core_config config(pmvp_mt_policy mt)
{
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.num_pes = 3;
    cfg.mt_policy = mt;
    cfg.amu_num_aux = 2;
    cfg.pmu_version = PMVP_PMUV3P5;
    return cfg;
}

// That core, its EL2 and EL3 controls letting every PE count with MT == 1.
std::unique_ptr<pmvp_core> multithreaded_core(const pmvp_core_config &cfg)
{
    auto c = std::make_unique<pmvp_core>();
    EXPECT_EQ(pmvp_core_init(c.get(), &cfg), PMVP_OK);
    for (unsigned pe = 0; pe < cfg.num_pes; pe++) {
        pmvp_pmu_controls ctl{};
        ctl.mdcr_el2 = PMVP_FIELD_PREP(PMVP_MDCR_EL2_HPMN, cfg.num_counters);
        ctl.mdcr_el3 = PMVP_MDCR_EL3_MTPME | PMVP_MDCR_EL3_SPME;
        EXPECT_EQ(pmvp_core_set_controls(c.get(), pe, &ctl, 0), PMVP_OK);
    }
    return c;
}

// SMT, FGMT and SoEMT cores of 3 PEs and 6 counters, MT enabled: 2000 random
// inputs each, and after each every register of every PE, 0 to 5 us ahead,
// the same on the core with caches as on the core that computes its rates
// afresh (its caches dropped before every call).
TEST(RateCaches, CountAsRatesComputedAfresh)
{
    for (pmvp_mt_policy mt : { PMVP_MT_SMT, PMVP_MT_FGMT, PMVP_MT_SOEMT }) {
        const pmvp_core_config cfg = config(mt);
        auto cached = multithreaded_core(cfg), fresh = std::make_unique<pmvp_core>();
        pmvp_core_copy(fresh.get(), cached.get());
        std::mt19937_64 a(mt + 1), b(mt + 1), ahead(mt + 100);
        pmvp_time t = 0;
        unsigned compared = 0;
        for (int i = 0; i < 2000; i++) {
            t += 1 + ahead() % 300000;
            input(cached.get(), a, t);
            pmvp_core_drop_caches(fresh.get());
            input(fresh.get(), b, t);
            pmvp_time later = t + ahead() % 5000000;
            ASSERT_EQ(pmvp_core_sync(cached.get(), t), PMVP_OK);  // the caches made again, if dropped
            pmvp_core_drop_caches(fresh.get());
            for (unsigned pe = 0; pe < cfg.num_pes; pe++) {
                RegisterImage x = every_register(cached.get(), pe, later), y = every_register(fresh.get(), pe, later);
                ASSERT_EQ(x, y) << "MT policy " << mt << ", input " << i << ", PE " << pe;
                compared += (unsigned)x.size();
            }
        }
        EXPECT_GT(compared, 100000u);
    }
}

// Counters ahead of the core's sync. SMT, FGMT and SoEMT cores, MT on: 3000
// random inputs (a third of them level changes, so several come between two
// syncs of the whole core), the same on a core brought whole to each input's
// instant first; after each, every register of every PE 0 to 5 us ahead is
// the same on both. Every 100 inputs the first core goes through a
// checkpoint, counters ahead included.
TEST(RateCaches, CountersAheadCountAsTheWholeCoreBroughtToEachInput)
{
    for (pmvp_mt_policy mt : { PMVP_MT_SMT, PMVP_MT_FGMT, PMVP_MT_SOEMT }) {
        const pmvp_core_config cfg = config(mt);
        auto lazy = multithreaded_core(cfg), whole = std::make_unique<pmvp_core>();
        pmvp_core_copy(whole.get(), lazy.get());
        std::mt19937_64 a(mt + 7), b(mt + 7), step(mt + 200);
        pmvp_time t = 0;
        unsigned ahead = 0;
        for (int i = 0; i < 3000; i++) {
            t += 1 + step() % 300000;
            bool level = step() % 3 == 0;
            auto give = [&](pmvp_core *c, std::mt19937_64 &rng) {
                if (level)
                    (void)pmvp_core_set_level(c, (unsigned)(rng() % cfg.num_pes), kLevels[rng() % 3],
                                              (uint32_t)(rng() % 3), t);
                else
                    input(c, rng, t);
            };
            give(lazy.get(), a);
            ASSERT_EQ(pmvp_core_sync(whole.get(), t), PMVP_OK);
            give(whole.get(), b);
            for (unsigned pe = 0; pe < cfg.num_pes; pe++)
                ahead += lazy->pe[pe].ahead != 0 || lazy->pe[pe].amu_ahead != 0;
            if (i % 100 == 99) {
                std::vector<uint8_t> buf(pmvp_core_checkpoint_size(lazy.get()));
                ASSERT_EQ(pmvp_core_save(lazy.get(), buf.data(), buf.size()), PMVP_OK);
                auto restored = std::make_unique<pmvp_core>();
                ASSERT_EQ(pmvp_core_init(restored.get(), &cfg), PMVP_OK);
                ASSERT_EQ(pmvp_core_restore(restored.get(), buf.data(), buf.size(), nullptr), PMVP_OK);
                lazy = std::move(restored);
            }
            pmvp_time later = t + step() % 5000000;
            for (unsigned pe = 0; pe < cfg.num_pes; pe++)
                ASSERT_EQ(every_register(lazy.get(), pe, later), every_register(whole.get(), pe, later))
                    << "MT policy " << mt << ", input " << i << ", PE " << pe;
        }
        EXPECT_GT(ahead, 100u);  // counters were left ahead, often
    }
}

}  // namespace
}  // namespace pmvp::test
