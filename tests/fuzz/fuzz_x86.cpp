// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the x86 clock counters' interface (pmvp/x86.h). A
// refused call leaves the core byte for byte as it was; next_interrupt is
// never in the past.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fuzzer/FuzzedDataProvider.h>

extern "C" {
#include "pmvp/error.h"
#include "pmvp/x86.h"
}

namespace {

[[noreturn]] void broken(const char *what)
{
    std::fprintf(stderr, "invariant broken: %s\n", what);
    std::abort();
}

const uint32_t kMsrs[] = { PMVP_MSR_IA32_TSC,
                           PMVP_MSR_IA32_PMC0,
                           PMVP_MSR_IA32_PMC0 + 1,
                           PMVP_MSR_IA32_MPERF,
                           PMVP_MSR_IA32_APERF,
                           PMVP_MSR_IA32_PERFEVTSEL0,
                           PMVP_MSR_IA32_PERFEVTSEL0 + 1,
                           PMVP_MSR_IA32_FIXED_CTR0,
                           PMVP_MSR_IA32_FIXED_CTR0 + 1,
                           PMVP_MSR_IA32_FIXED_CTR0 + 2,
                           PMVP_MSR_IA32_PERF_CAPABILITIES,
                           PMVP_MSR_IA32_FIXED_CTR_CTRL,
                           PMVP_MSR_IA32_PERF_GLOBAL_STATUS,
                           PMVP_MSR_IA32_PERF_GLOBAL_CTRL,
                           PMVP_MSR_IA32_PERF_GLOBAL_OVF_CTRL,
                           PMVP_MSR_IA32_A_PMC0,
                           0x1234 };

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FuzzedDataProvider in(data, size);
    pmvp_x86_config cfg;
    pmvp_x86_config_default(&cfg);
    cfg.num_threads = in.ConsumeIntegralInRange<unsigned>(1, 2);
    cfg.core_hz = in.ConsumeIntegralInRange<uint64_t>(0, 6000000000u);
    cfg.tsc_hz = in.ConsumeIntegralInRange<uint64_t>(1, 6000000000u);
    static pmvp_x86_core core, before;
    if (pmvp_x86_init(&core, &cfg) != PMVP_OK)
        return 0;
    pmvp_time now = 0;
    while (in.remaining_bytes() > 0) {
        pmvp_time t = in.ConsumeIntegralInRange<int>(0, 9) == 0 && now > 10
                          ? now - 10
                          : now + in.ConsumeIntegralInRange<pmvp_time>(0, 1u << 30);
        unsigned lp = in.ConsumeIntegralInRange<unsigned>(0, 2);
        uint64_t v = in.ConsumeIntegral<uint64_t>();
        std::memcpy(&before, &core, sizeof core);
        int err;
        switch (in.ConsumeIntegralInRange<int>(0, 7)) {
        case 0: err = pmvp_x86_rdmsr(&core, lp, in.PickValueInArray(kMsrs), t, &v); break;
        case 1: err = pmvp_x86_wrmsr(&core, lp, in.PickValueInArray(kMsrs), v, t); break;
        case 2: err = pmvp_x86_rdpmc(&core, lp, (uint32_t)v, t, &v); break;
        case 3: err = pmvp_x86_set_state(&core, lp, (pmvp_x86_state)(v % 4), t); break;
        case 4: err = pmvp_x86_set_core_clock(&core, v % 3 ? v % 6000000000u : v, t); break;
        case 5: {
            pmvp_x86_context x{ (uint8_t)(v % 5), (bool)(v >> 8 & 1), (bool)(v >> 9 & 1) };
            err = pmvp_x86_set_context(&core, lp, &x, t);
            break;
        }
        case 6: err = pmvp_x86_rdtsc(&core, lp, t, &v); break;
        default: err = pmvp_x86_report(&core, lp, (uint16_t)(v & 0xFFFF), v >> 48, t); break;
        }
        if (err != PMVP_OK) {
            if (std::memcmp(&before, &core, sizeof core) != 0)
                broken("a refused call changed the core");
            continue;
        }
        if (t > now)
            now = t;
        pmvp_time when = 0;
        if (pmvp_x86_next_interrupt(&core, now, &when) == PMVP_OK && when != PMVP_TIME_NEVER && when <= now)
            broken("next_interrupt is not after the present");
    }
    return 0;
}
