// SPDX-License-Identifier: Apache-2.0
//
// The pmvp machine's system-control device (docs/FIRMWARE.md), as the
// ISS's engines map it.

#include "aarch64_iss.h"

namespace pmvp::soc {

namespace {

// The system-control device (docs/FIRMWARE.md): offsets.
enum : uint64_t {
    SYSCTL_CONSOLE = 0x00,
    SYSCTL_EXIT = 0x04,
    SYSCTL_PE = 0x08,
    SYSCTL_NUM_PES = 0x0C,
    SYSCTL_THREAD = 0x10,
    SYSCTL_CORE_HZ = 0x14,
    SYSCTL_CPI = 0x18,
    SYSCTL_SYSCNT_HZ = 0x1C,
    SYSCTL_IRQ_STATUS = 0x20,
    SYSCTL_IRQ_ENABLE = 0x24,
    SYSCTL_DOORBELL_SET = 0x28,
    SYSCTL_DOORBELL_CLEAR = 0x2C,
    SYSCTL_THREADS = 0x30,
    SYSCTL_WFX = 0x34,
    SYSCTL_SOC_PE = 0x38,
    SYSCTL_SOC_PES = 0x3C,
    SYSCTL_TIME = 0x40,
    SYSCTL_SELECT = 0x48,
    SYSCTL_SELECTED_MODEL = 0x4C,
    SYSCTL_SELECTED_HZ = 0x50,
};
constexpr uint32_t kModelAnalytic = 0, kModelIss = 1, kNoSuchPe = 0xFFFFFFFF;

uint64_t on_sysctl_read(uc_engine *, uint64_t off, unsigned size, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    const Scenario &s = iss.soc_.scenario;
    auto access_time = [&] { return iss.time_of(t, iss.retired_before_access(t)); };
    switch (off) {
    case SYSCTL_PE: return t.image_pe;
    case SYSCTL_NUM_PES: return iss.guest_.doorbell.size();
    case SYSCTL_SOC_PE: return t.g;
    case SYSCTL_SOC_PES: return s.num_pes();
    case SYSCTL_TIME: {  // 64 bits, or its low or high half
        pmvp_time now = access_time();
        return size == 8 ? now : (uint32_t)now;
    }
    case SYSCTL_TIME + 4: return size == 4 ? access_time() >> 32 : 0;
    case SYSCTL_SELECT: return t.selected;
    case SYSCTL_SELECTED_MODEL:
        if (t.selected >= iss.soc_.pes.size())
            return kNoSuchPe;
        return iss.soc_.pes[t.selected].iss ? kModelIss : kModelAnalytic;
    case SYSCTL_SELECTED_HZ:
        if (t.selected >= iss.soc_.pes.size())
            return 0;
        return (uint32_t)iss.soc_.core_of(t.selected).cluster.hz_at(access_time());
    case SYSCTL_THREAD: return t.pe;
    case SYSCTL_THREADS: return iss.threads.size();
    case SYSCTL_CORE_HZ: return (uint32_t)iss.cluster_.hz_at(access_time());
    case SYSCTL_CPI: return iss.cluster_.cpu.cpi;
    case SYSCTL_SYSCNT_HZ: return (uint32_t)s.system_counter_hz;
    case SYSCTL_WFX: {  // the core's WFx choices, so the firmware knows what to expect
        const pmvp_core_config &c = iss.cluster_.config;
        return (c.clock_stops_in_wfx ? 1u : 0u) | (c.pmccntr_counts_in_wfx ? 2u : 0u) |
               (c.wfx_thread_active ? 4u : 0u) | (c.cpu_cycles_in_wfx ? 8u : 0u);
    }
    case SYSCTL_IRQ_ENABLE: return t.irq_enable;
    case SYSCTL_IRQ_STATUS: {
        iss.tell_retired(t, iss.retired_before_access(t));  // PMUIRQ after the instructions before it
        pmvp_time at = access_time();
        bool pmu = false;
        if (iss.monitors_)
            iss.check(iss.monitors_->irq_level(t.pe, pmu, iss.offset(at)), "irq_level");
        const Guest::Doorbell &bell = iss.guest_.doorbell[t.image_pe];
        return (pmu ? kIrqPmu : 0) | (bell.rung && bell.at <= at ? kIrqDoorbell : 0);
    }
    default: return 0;  // write-only and reserved offsets read as zero
    }
}

void on_sysctl_write(uc_engine *, uint64_t off, unsigned, uint64_t value, void *user)
{
    auto &t = *static_cast<Aarch64Iss::Thread *>(user);
    Aarch64Iss &iss = *t.iss;
    const uint64_t before = iss.retired_before_access(t);
    pmvp_time at = iss.time_of(t, before);
    switch (off) {
    case SYSCTL_CONSOLE: t.result.console += (char)value; break;
    case SYSCTL_EXIT:
        iss.tell_retired(t, before);
        t.exited = true;
        t.result.exited = true;
        t.result.exit_instructions = before;
        t.result.status = (uint32_t)value;
        t.result.exit_time = at;
        t.result.ended_by = "SYSCTL_EXIT";
        iss.stop(t);
        break;
    case SYSCTL_IRQ_ENABLE:
        t.irq_enable = (uint32_t)value & (kIrqPmu | kIrqDoorbell);
        iss.stop(t);
        break;
    case SYSCTL_DOORBELL_SET:
        if (value < iss.guest_.doorbell.size())
            iss.guest_.ring((unsigned)value, at);
        break;
    case SYSCTL_SELECT: t.selected = (uint32_t)value; break;
    case SYSCTL_DOORBELL_CLEAR: iss.guest_.doorbell[t.image_pe].rung = false; break;
    default: break;  // read-only and reserved offsets ignore writes
    }
}

}  // namespace

void map_pmvp_devices(Aarch64Iss::Thread &t)
{
    unicorn_ok(uc_mmio_map(t.uc, kSysctlBase, 0x1000, on_sysctl_read, &t, on_sysctl_write, &t), "map sysctl");
}

}  // namespace pmvp::soc
