// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: a kernel checkpoint (pmvp/checkpoint.h) restored into
// a core of the configuration the input chooses. Invariants (tests/fuzz/
// README.md): a refused restore leaves the core byte for byte as it was;
// a restored core is one the calls could have made: the next interrupt and
// the next overflow are not before its present, and its counters, read
// forward in time, never go back without an overflow flag.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "checkpoint_bytes.h"

extern "C" {
#include "pmvp/checkpoint.h"
#include "pmvp/core.h"
#include "pmvp/pmu.h"
}

namespace {

[[noreturn]] void broken(const char *what)
{
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

pmvp_core core, before;

// The counters of PE 0 and its overflow flags at `t`.
bool counters(pmvp_time t, uint64_t *value, uint64_t &ovs)
{
    if (pmvp_pmu_read(&core, 0, PMVP_PMOVSSET_EL0, 0, t, &ovs) != PMVP_OK)
        return false;
    if (pmvp_pmu_read(&core, 0, PMVP_PMCCNTR_EL0, 0, t, &value[31]) != PMVP_OK)
        return false;
    for (unsigned n = 0; n < core.cfg.num_counters; n++)
        if (pmvp_pmu_read(&core, 0, PMVP_PMEVCNTR_EL0, n, t, &value[n]) != PMVP_OK)
            return false;
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzedDataProvider in(data, size);
    pmvp_core_config cfg;
    pmvp_core_config_default(&cfg);
    cfg.num_pes = in.ConsumeIntegralInRange<unsigned>(1, 2);
    cfg.num_counters = in.ConsumeIntegralInRange<unsigned>(1, 6);
    if (pmvp_core_init(&core, &cfg) != PMVP_OK)
        return 0;
    // Most inputs start from a real checkpoint of the core after a few
    // calls, with bytes of its state changed and its checksum made good
    // again (pmvp/checkpoint.h: FNV-1a of the bytes before it), so that the
    // restore judges the state itself; the others are bytes as they come.
    std::vector<uint8_t> ck(pmvp_core_checkpoint_size(&core));
    if (in.ConsumeIntegralInRange<int>(0, 7)) {
        pmvp_time t = 0;
        (void)pmvp_pmu_write(&core, 0, PMVP_PMCR_EL0, 0, 1, t);
        (void)pmvp_pmu_write(&core, 0, PMVP_PMCNTENSET_EL0, 0, in.ConsumeIntegral<uint32_t>(), t);
        for (int i = in.ConsumeIntegralInRange<int>(0, 4); i > 0; i--) {
            t += in.ConsumeIntegralInRange<pmvp_time>(0, 100000000);
            switch (in.ConsumeIntegralInRange<int>(0, 2)) {
            case 0: (void)pmvp_core_set_clock(&core, in.ConsumeIntegralInRange<uint64_t>(0, 5000000000), t); break;
            case 1: (void)pmvp_core_report(&core, 0, 0x08, in.ConsumeIntegral<uint16_t>(), t); break;
            default: (void)pmvp_core_sync(&core, t); break;
            }
        }
        (void)pmvp_core_save(&core, ck.data(), ck.size());
        const size_t header = 28, trailer = 8;
        while (in.remaining_bytes() > 8 && in.ConsumeBool())
            ck[in.ConsumeIntegralInRange<size_t>(header, ck.size() - trailer - 1)] = in.ConsumeIntegral<uint8_t>();
        make_checksum_good(ck);
    } else {
        ck = in.ConsumeBytes<uint8_t>(ck.size());
    }
    std::memcpy(&before, &core, sizeof core);
    const char *why = nullptr;
    if (pmvp_core_restore(&core, ck.data(), ck.size(), &why) != PMVP_OK) {
        if (std::memcmp(&before, &core, sizeof core) != 0)
            broken("a refused restore changed the core");
        return 0;
    }
    const pmvp_time now = core.last_call;
    pmvp_time next = PMVP_TIME_NEVER;
    if (pmvp_core_next_interrupt(&core, now, &next) == PMVP_OK && next < now)
        broken("the next interrupt of a restored core is before its present");
    if (pmvp_core_next_event(&core, now, &next) == PMVP_OK && next < now)
        broken("the next overflow of a restored core is before its present");
    uint64_t a[32] = {}, b[32] = {}, ovs_a = 0, ovs_b = 0;
    const pmvp_time later = now + in.ConsumeIntegralInRange<pmvp_time>(0, 1000000000);
    if (!counters(now, a, ovs_a) || !counters(later < now ? now : later, b, ovs_b))
        return 0;
    for (unsigned n = 0; n < 32; n++)
        if ((n < core.cfg.num_counters || n == 31) && b[n] < a[n] && !(ovs_b >> n & 1))
            broken("a counter of a restored core went back without its overflow flag");
    return 0;
}
