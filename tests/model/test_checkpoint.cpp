// SPDX-License-Identifier: Apache-2.0
// Checkpoint and restore (pmvp/checkpoint.h): a restored core behaves, call
// for call, as the core that was saved, the inaccuracy profile's draws
// included; a checkpoint that is truncated, corrupt, of another version or
// of another configuration is refused with why, and changes nothing. (The
// differential test also checkpoints the kernel at random points and holds
// it to the reference model.)
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "fixture.h"
#include "pmvp/amu.h"
#include "pmvp/checkpoint.h"
#include "pmvp/x86.h"

namespace pmvp::test {
namespace {

class Checkpoint : public Kernel {
protected:
    std::vector<uint8_t> save()
    {
        std::vector<uint8_t> buf(pmvp_core_checkpoint_size(&core));
        EXPECT_EQ(pmvp_core_save(&core, buf.data(), buf.size()), PMVP_OK);
        return buf;
    }
    // A core initialised afresh with `cfg`, then restored from `buf`.
    std::unique_ptr<pmvp_core> restored(const std::vector<uint8_t> &buf)
    {
        auto c = std::make_unique<pmvp_core>();
        EXPECT_EQ(pmvp_core_init(c.get(), &cfg), PMVP_OK);
        const char *why = nullptr;
        EXPECT_EQ(pmvp_core_restore(c.get(), buf.data(), buf.size(), &why), PMVP_OK) << (why ? why : "");
        return c;
    }
};

// One input or read, the same for two cores: what the call returned and read.
struct Outcome {
    int err;
    uint64_t value;
    bool operator==(const Outcome &o) const { return err == o.err && value == o.value; }
};

Outcome apply(pmvp_core *c, std::mt19937_64 &rng, pmvp_time t, unsigned num_counters)
{
    auto rnd = [&](uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(rng); };
    uint64_t v = 0;
    unsigned n = (unsigned)rnd(num_counters);
    switch (rnd(9)) {
    case 0: return { pmvp_core_report(c, 0, PMVP_EV_INST_RETIRED, 1 + rnd(500), t), 0 };
    case 1: return { pmvp_core_set_level(c, 0, PMVP_EV_STALL_BACKEND, (uint32_t)rnd(2), t), 0 };
    case 2: return { pmvp_pmu_write(c, 0, PMVP_PMCNTENCLR_EL0, 0, 1u << n, t), 0 };
    case 3: return { pmvp_pmu_write(c, 0, PMVP_PMCNTENSET_EL0, 0, (1u << n) | PMVP_PMU_C, t), 0 };
    case 4: {
        pmvp_context x{};
        x.el = 1;
        x.security = rnd(2) ? PMVP_SECURE : PMVP_NONSECURE;
        return { pmvp_core_set_context(c, 0, &x, t), 0 };
    }
    case 5: return { pmvp_core_set_clock(c, 500000000 + rnd(3000000000), t), 0 };
    case 6: {
        int err = pmvp_amu_read(c, 0, PMVP_AMEVCNTR0_EL0, (unsigned)rnd(PMVP_AMU_ARCH_COUNTERS), t, &v);
        return { err, v };
    }
    case 7: {
        int err = pmvp_pmu_read(c, 0, PMVP_PMCCNTR_EL0, 0, t, &v);
        return { err, v };
    }
    default: {
        int err = pmvp_pmu_read(c, 0, PMVP_PMEVCNTR_EL0, n, t, &v);
        return { err, v };
    }
    }
}

// Saved mid-run with every inaccuracy knob on, restored into a fresh core:
// the two then answer 2000 identical calls identically, the seeded draws
// of the profile included.
TEST_F(Checkpoint, RestoredCoreGoesOnAsTheSavedOne)
{
    cfg.feat_ebep = cfg.feat_sebep = true;
    cfg.inaccuracy.seed = 42;
    cfg.inaccuracy.draw = PMVP_DRAW_SEEDED;
    cfg.inaccuracy.boundary_events = 8;
    cfg.inaccuracy.read_delay_cycles = 50;
    cfg.inaccuracy.drop_ppm = 5000;
    cfg.inaccuracy.shadow_events = 4;
    init();
    enable_cycle_counter(0);
    program(0, 0, PMVP_EV_INST_RETIRED);
    program(0, 1, PMVP_EV_STALL_BACKEND);
    program(0, 2, PMVP_EV_CPU_CYCLES);
    std::mt19937_64 rng(7);
    pmvp_time t = 0;
    for (int i = 0; i < 500; i++, t += 100 * kNs)
        apply(&core, rng, t, cfg.num_counters);
    auto twin = restored(save());
    EXPECT_EQ(twin->last_call, core.last_call);
    std::mt19937_64 a(11), b(11);
    unsigned differing = 0, values = 0;
    for (int i = 0; i < 2000; i++, t += 37 * kNs) {
        Outcome x = apply(&core, a, t, cfg.num_counters), y = apply(twin.get(), b, t, cfg.num_counters);
        differing += !(x == y);
        values += x.value != 0;
    }
    EXPECT_EQ(differing, 0u);
    EXPECT_GT(values, 300u);  // the reads read counts, not zeros
}

// Every register that holds a value is in the checkpoint: after random
// writes to every register of both PEs (every feature with registers on),
// the restored core shows every register as the saved one does.
TEST_F(Checkpoint, EveryRegisterIsSaved)
{
    cfg.num_pes = 2;
    cfg.pmu_version = PMVP_PMUV3P5;
    cfg.feat_ebep = cfg.feat_sebep = true;
    cfg.feat_amuv1p1 = true;
    cfg.amu_num_aux = 3;
    init();
    std::mt19937_64 rng(5);
    for (unsigned pe = 0; pe < 2; pe++)
        scribble(&core, pe, kUs, rng);
    auto twin = restored(save());
    for (unsigned pe = 0; pe < 2; pe++)
        EXPECT_EQ(every_register(&core, pe, 3 * kUs), every_register(twin.get(), pe, 3 * kUs)) << "PE " << pe;
}

// A reset (pmvp_pmu_reset, pmvp_amu_reset) brings every register back to
// what a core fresh from init shows, whatever was written to it.
TEST_F(Checkpoint, ResetForgetsEveryWrite)
{
    cfg.pmu_version = PMVP_PMUV3P5;
    cfg.feat_ebep = cfg.feat_sebep = true;
    cfg.feat_amuv1p1 = true;
    cfg.amu_num_aux = 3;
    cfg.amu_aux_event[1] = PMVP_EV_INST_RETIRED;
    init();
    auto fresh = std::make_unique<pmvp_core>();
    std::memcpy(fresh.get(), &core, sizeof core);
    std::mt19937_64 rng(6);
    scribble(&core, 0, kUs, rng);
    EXPECT_NE(every_register(&core, 0, 2 * kUs), every_register(fresh.get(), 0, 2 * kUs));
    ASSERT_EQ(pmvp_pmu_reset(&core, 0, 2 * kUs), PMVP_OK);
    ASSERT_EQ(pmvp_amu_reset(&core, 0, 2 * kUs), PMVP_OK);
    EXPECT_EQ(every_register(&core, 0, 2 * kUs), every_register(fresh.get(), 0, 2 * kUs));
}

// The drop knob's generator is state: without it in the checkpoint the two
// cores' drops part ways (this is what the test above would miss if the
// profile were off).
TEST_F(Checkpoint, TheInaccuracyGeneratorIsSaved)
{
    cfg.inaccuracy.seed = 3;
    cfg.inaccuracy.draw = PMVP_DRAW_SEEDED;
    cfg.inaccuracy.drop_ppm = PMVP_MAX_DROP_PPM;
    init();
    program(0, 0, PMVP_EV_INST_RETIRED);
    for (int i = 0; i < 100; i++)
        ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 100, i * kNs), PMVP_OK);
    auto twin = restored(save());
    for (int i = 100; i < 5000; i++) {
        ASSERT_EQ(pmvp_core_report(&core, 0, PMVP_EV_INST_RETIRED, 100, i * kNs), PMVP_OK);
        ASSERT_EQ(pmvp_core_report(twin.get(), 0, PMVP_EV_INST_RETIRED, 100, i * kNs), PMVP_OK);
    }
    uint64_t x = 0, y = 0;
    ASSERT_EQ(pmvp_pmu_read(&core, 0, PMVP_PMEVCNTR_EL0, 0, 5000 * kNs, &x), PMVP_OK);
    ASSERT_EQ(pmvp_pmu_read(twin.get(), 0, PMVP_PMEVCNTR_EL0, 0, 5000 * kNs, &y), PMVP_OK);
    EXPECT_EQ(x, y);
    EXPECT_LT(x, 500000u);  // some occurrences were dropped
}

// The header: magic, version and length little-endian whatever the host;
// the same state saves to the same bytes.
TEST_F(Checkpoint, Format)
{
    init();
    enable_cycle_counter(0);
    std::vector<uint8_t> buf = save();
    ASSERT_GT(buf.size(), 36u);
    EXPECT_EQ(std::string(buf.begin(), buf.begin() + 8), "PMVPCKPT");
    EXPECT_EQ(buf[8], PMVP_CHECKPOINT_VERSION);
    EXPECT_EQ(buf[9] | buf[10] | buf[11], 0);
    uint64_t payload = 0;
    for (int i = 0; i < 8; i++)
        payload |= (uint64_t)buf[20 + i] << (8 * i);
    EXPECT_EQ(payload, buf.size() - 28 - 8);
    EXPECT_EQ(save(), buf);
    std::vector<uint8_t> small(buf.size() - 1);
    EXPECT_EQ(pmvp_core_save(&core, small.data(), small.size()), PMVP_ERR_SIZE);
    EXPECT_EQ(pmvp_core_save(nullptr, small.data(), small.size()), PMVP_ERR_NULL);
}

// Every refusal says why and leaves the core as it was.
TEST_F(Checkpoint, BadCheckpointsAreRefusedAndChangeNothing)
{
    init();
    enable_cycle_counter(0);
    write(0, PMVP_PMCCNTR_EL0, 1234, kUs);
    const std::vector<uint8_t> good = save();
    write(0, PMVP_PMCCNTR_EL0, 99, 2 * kUs);  // the core moves on
    auto refused = [&](std::vector<uint8_t> buf, const char *expected) {
        std::vector<uint8_t> before(sizeof core);
        std::memcpy(before.data(), &core, sizeof core);
        const char *why = nullptr;
        EXPECT_EQ(pmvp_core_restore(&core, buf.data(), buf.size(), &why), PMVP_ERR_CHECKPOINT);
        EXPECT_STREQ(why, expected);
        EXPECT_EQ(std::memcmp(before.data(), &core, sizeof core), 0) << expected;
    };
    refused(std::vector<uint8_t>(good.begin(), good.end() - 1), "a truncated checkpoint");
    refused(std::vector<uint8_t>(good.begin(), good.begin() + 20), "a truncated checkpoint");
    refused(std::vector<uint8_t>(4, 0), "not a pmvp checkpoint");
    std::vector<uint8_t> corrupt = good;
    corrupt[40] ^= 1;
    refused(corrupt, "a corrupt checkpoint (its checksum does not match)");
    std::vector<uint8_t> version = good;
    version[8] = PMVP_CHECKPOINT_VERSION + 1;
    refused(version, "a checkpoint of another format version");
    // Another configuration of the same dimensions, and other dimensions.
    cfg.processor_hz = 2 * kGHz;
    init();
    refused(good, "a checkpoint of a core with another configuration");
    cfg.num_counters = 4;
    init();
    refused(good, "a checkpoint of a core with other dimensions");
    EXPECT_EQ(pmvp_core_restore(nullptr, good.data(), good.size(), nullptr), PMVP_ERR_NULL);
    // The right core takes it: the counter as it was saved.
    cfg.num_counters = 6;
    cfg.processor_hz = kGHz;
    init();
    // Checked as a configuration and the calls would check them, with a
    // good checksum: a clock above 1 THz (PMCCNTR would pass 2^64 without
    // its overflow flag), a phase of a whole cycle, clock fields that
    // disagree with the edges the core counted (the next interrupt would
    // come before now), more processor cycles than edges.
    auto saved_with = [&](void (*edit)(pmvp_core &)) {
        auto c = std::make_unique<pmvp_core>();
        EXPECT_EQ(pmvp_core_init(c.get(), &cfg), PMVP_OK);
        EXPECT_EQ(pmvp_core_restore(c.get(), good.data(), good.size(), nullptr), PMVP_OK);
        edit(*c);
        std::vector<uint8_t> buf(pmvp_core_checkpoint_size(c.get()));
        EXPECT_EQ(pmvp_core_save(c.get(), buf.data(), buf.size()), PMVP_OK);
        return buf;
    };
    const char *const out_of_range = "a clock is out of range (above 1 THz, or a phase of a cycle or more)";
    refused(saved_with([](pmvp_core &c) { c.clock.hz = 2 * PMVP_MAX_CLOCK_HZ; }), out_of_range);
    refused(saved_with([](pmvp_core &c) { c.bus_clock.phase = PMVP_PS_PER_SECOND; }), out_of_range);
    // A clock changed after the sync, as a change that syncs only what
    // follows it leaves it, is taken; with more edges counted by the sync
    // than by the change, not.
    auto later_change = [](pmvp_core &c) { pmvp_clock_set_hz(&c.system_counter, 50000000, c.sync_time + kUs); };
    std::vector<uint8_t> changed = saved_with(later_change);
    {
        auto c = std::make_unique<pmvp_core>();
        ASSERT_EQ(pmvp_core_init(c.get(), &cfg), PMVP_OK);
        const char *why = nullptr;
        EXPECT_EQ(pmvp_core_restore(c.get(), changed.data(), changed.size(), &why), PMVP_OK) << (why ? why : "");
    }
    refused(saved_with([](pmvp_core &c) {
                pmvp_clock_set_hz(&c.system_counter, 50000000, c.sync_time + kUs);
                c.syscnt_edges = c.system_counter.cycles0 + 1;
            }),
            "a clock's edges disagree with the edges the core counted");
    refused(saved_with([](pmvp_core &c) { c.clock_edges += 5; }),
            "a clock's edges disagree with the edges the core counted");
    refused(saved_with([](pmvp_core &c) { c.clock.cycles0 += 5; }),
            "a clock's edges disagree with the edges the core counted");
    refused(saved_with([](pmvp_core &c) { c.proc_cycles = c.clock_edges + 1; }),
            "more processor cycles than the clock's edges");
    ASSERT_EQ(pmvp_core_restore(&core, good.data(), good.size(), nullptr), PMVP_OK);
    EXPECT_EQ(cycles(0, kUs), 1234u);
    EXPECT_EQ(cycles(0, 2 * kUs), 1234u + 1000u);
}

// An x86 core likewise: the restored core reads what the saved one reads
// across halts, CPL changes, clock changes and reports.
// Every MSR that holds a value is in the checkpoint: after random writes to
// every instance of every MSR of both logical processors, the restored core
// reads every MSR as the saved one does.
TEST(CheckpointX86, EveryMsrIsSaved)
{
    pmvp_x86_config cfg;
    pmvp_x86_config_default(&cfg);
    cfg.full_width_writes = true;
    auto core = std::make_unique<pmvp_x86_core>(), twin = std::make_unique<pmvp_x86_core>();
    ASSERT_EQ(pmvp_x86_init(core.get(), &cfg), PMVP_OK);
    ASSERT_EQ(pmvp_x86_init(twin.get(), &cfg), PMVP_OK);
    auto instances = [&](const pmvp_x86_msr_info *m) {
        std::string n = m->instances;
        return n == "num_gp" ? cfg.num_gp : n == "3" ? 3u : 1u;
    };
    std::mt19937_64 rng(9);
    unsigned written = 0;
    for (unsigned t = 0; t < cfg.num_threads; t++)
        for (size_t i = 0; i < pmvp_x86_msr_count(); i++)
            for (unsigned x = 0; x < instances(pmvp_x86_msr_at(i)); x++)
                for (uint64_t mask : { UINT64_MAX, UINT64_C(0xFFFFFFFF), UINT64_C(0xFFFF), UINT64_C(0x3) })
                    if (pmvp_x86_wrmsr(core.get(), t, pmvp_x86_msr_at(i)->address + x, rng() & mask, kUs) == PMVP_OK) {
                        written++;
                        break;
                    }
    EXPECT_GT(written, 20u);
    std::vector<uint8_t> buf(pmvp_x86_checkpoint_size(core.get()));
    ASSERT_EQ(pmvp_x86_save(core.get(), buf.data(), buf.size()), PMVP_OK);
    ASSERT_EQ(pmvp_x86_restore(twin.get(), buf.data(), buf.size(), nullptr), PMVP_OK);
    unsigned values = 0;
    for (unsigned t = 0; t < cfg.num_threads; t++)
        for (size_t i = 0; i < pmvp_x86_msr_count(); i++)
            for (unsigned x = 0; x < instances(pmvp_x86_msr_at(i)); x++) {
                const pmvp_x86_msr_info *m = pmvp_x86_msr_at(i);
                uint64_t a = 0, b = 0;
                ASSERT_EQ(pmvp_x86_rdmsr(core.get(), t, m->address + x, 2 * kUs, &a), PMVP_OK) << m->name;
                ASSERT_EQ(pmvp_x86_rdmsr(twin.get(), t, m->address + x, 2 * kUs, &b), PMVP_OK) << m->name;
                EXPECT_EQ(a, b) << m->name << " instance " << x << " of thread " << t;
                values += a != 0;
            }
    EXPECT_GT(values, 20u);
}

TEST(CheckpointX86, RestoredCoreGoesOnAsTheSavedOne)
{
    pmvp_x86_config cfg;
    pmvp_x86_config_default(&cfg);
    pmvp_x86_core core;
    ASSERT_EQ(pmvp_x86_init(&core, &cfg), PMVP_OK);
    const uint32_t kFixedCtrl = 0x38D, kEvtsel0 = 0x186, kPmc0 = 0xC1, kFixed1 = 0x30A, kMperf = 0xE7, kAperf = 0xE8;
    for (unsigned t = 0; t < 2; t++) {
        ASSERT_EQ(pmvp_x86_wrmsr(&core, t, kFixedCtrl, 0x333, 0), PMVP_OK);  // OS, USR for fixed 0..2
        ASSERT_EQ(pmvp_x86_wrmsr(&core, t, kEvtsel0,
                                 PMVP_X86_CPU_CLK_UNHALTED_THREAD_P | PMVP_X86_EVTSEL_OS | PMVP_X86_EVTSEL_EN |
                                     PMVP_X86_EVTSEL_ANY,
                                 0),
                  PMVP_OK);
    }
    std::mt19937_64 rng(5);
    auto rnd = [&](std::mt19937_64 &r, uint64_t n) { return std::uniform_int_distribution<uint64_t>(0, n - 1)(r); };
    auto act = [&](pmvp_x86_core *c, std::mt19937_64 &r, pmvp_time t) -> Outcome {
        unsigned th = (unsigned)rnd(r, 2);
        uint64_t v = 0;
        switch (rnd(r, 6)) {
        case 0: return { pmvp_x86_set_state(c, th, (pmvp_x86_state)rnd(r, 3), t), 0 };
        case 1: {
            pmvp_x86_context x{ (uint8_t)(rnd(r, 2) * 3), false, false };
            return { pmvp_x86_set_context(c, th, &x, t), 0 };
        }
        case 2: return { pmvp_x86_set_core_clock(c, 800000000 + rnd(r, 3000000000), t), 0 };
        case 3: return { pmvp_x86_report(c, th, PMVP_X86_INST_RETIRED_ANY, rnd(r, 1000), t), 0 };
        default: {
            const uint32_t msrs[] = { kPmc0, kFixed1, kMperf, kAperf };
            int err = pmvp_x86_rdmsr(c, th, msrs[rnd(r, 4)], t, &v);
            return { err, v };
        }
        }
    };
    pmvp_time t = 0;
    for (int i = 0; i < 300; i++, t += 50 * kNs)
        act(&core, rng, t);
    std::vector<uint8_t> buf(pmvp_x86_checkpoint_size(&core));
    ASSERT_EQ(pmvp_x86_save(&core, buf.data(), buf.size()), PMVP_OK);
    pmvp_x86_core twin;
    ASSERT_EQ(pmvp_x86_init(&twin, &cfg), PMVP_OK);
    const char *why = nullptr;
    ASSERT_EQ(pmvp_x86_restore(&twin, buf.data(), buf.size(), &why), PMVP_OK) << (why ? why : "");
    std::mt19937_64 a(9), b(9);
    unsigned differing = 0, values = 0;
    for (int i = 0; i < 2000; i++, t += 31 * kNs) {
        Outcome x = act(&core, a, t), y = act(&twin, b, t);
        differing += !(x == y);
        values += x.value != 0;
    }
    EXPECT_EQ(differing, 0u);
    EXPECT_GT(values, 300u);
    // An Arm checkpoint is no x86 one, and the reverse.
    pmvp_core_config acfg;
    pmvp_core_config_default(&acfg);
    auto arm = std::make_unique<pmvp_core>();
    ASSERT_EQ(pmvp_core_init(arm.get(), &acfg), PMVP_OK);
    EXPECT_EQ(pmvp_core_restore(arm.get(), buf.data(), buf.size(), &why), PMVP_ERR_CHECKPOINT);
    EXPECT_STREQ(why, "a checkpoint of a core with other dimensions");
    std::vector<uint8_t> abuf(pmvp_core_checkpoint_size(arm.get()));
    ASSERT_EQ(pmvp_core_save(arm.get(), abuf.data(), abuf.size()), PMVP_OK);
    EXPECT_EQ(pmvp_x86_restore(&twin, abuf.data(), abuf.size(), &why), PMVP_ERR_CHECKPOINT);
}

}  // namespace
}  // namespace pmvp::test
