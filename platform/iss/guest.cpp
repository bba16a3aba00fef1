// SPDX-License-Identifier: Apache-2.0
//
// The guest: the RAM the ISS cores share, its image and device tree, and
// the process that runs the cores quantum by quantum.

#include "aarch64_iss.h"
#include <stdexcept>

namespace pmvp::soc {

Guest::Guest(const sc_core::sc_module_name &name, Soc &soc, bool attached)
    : sc_module(name), machine(soc.scenario.machine), ram_size(machine.ram()),
      frames_size((soc.scenario.num_pes() * kPeWindow + 0xFFF) & ~0xFFFull), bus("bus"), soc_(soc)
{
    const Scenario &s = soc.scenario;
    for (const Cluster &c : s.clusters)
        if (c.iss())
            doorbell.resize(doorbell.size() + (size_t)c.cores * c.config.num_pes);
    for (size_t i = 0; i < s.clusters.size(); i++)
        if (const Cluster &c = s.clusters[i]; c.iss() && c.cpu.firmware.empty())
            throw ScenarioError("clusters[" + std::to_string(i) +
                                "].cpu.firmware: missing (the image the ISS runs; "
                                "or give --kernel IMAGE)");
    path_ = iss_image(s);
    if (machine.kind == Machine::VIRT) {
        VirtBoot b = virt_boot(s, path_, attached);
        image = std::move(b.image);
        initrd = std::move(b.initrd);
        initrd_at = b.initrd_at;
        dtb = std::move(b.dtb);
        dtb_at = b.dtb_at;
        mpidr = virt_mpidrs(s);
        gic = std::make_unique<virt::Gic>((unsigned)mpidr.size(), machine.gic_version, mpidr);
        virtio.resize(virt::kVirtioSlots);
        files = std::make_unique<virt::SemihostingFiles>(machine.semihosting_dir);
        pci = std::make_unique<virt::PciBus>(machine.pci_testdev);
        if (machine.virtconsole != Machine::NO_VIRTCONSOLE)
            virtio[virt::kVirtioConsoleSlot] = virt::VirtioMmio(virt::VirtioMmio::kConsole);
    } else {
        image = load_firmware(path_, ram_size);
    }
    ram = static_cast<uint8_t *>(std::aligned_alloc(4096, ram_size));
    if (!ram)
        throw std::runtime_error("cannot allocate the guest RAM");
    std::memset(ram, 0, ram_size);
    load_ram(ram);
    SC_THREAD(run);
}

std::string Guest::uart_console() const
{
    std::vector<size_t> order(uart_out.size());
    for (size_t i = 0; i < order.size(); i++)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return uart_at[a] < uart_at[b]; });
    std::string text(uart_out.size(), '\0');
    for (size_t i = 0; i < order.size(); i++)
        text[i] = uart_out[order[i]];
    return text;
}

void Guest::console_put(char c, pmvp_time at)
{
    if (console_stream)
        console_pending_.emplace_back(at, c);
}

void Guest::virtconsole_put(char c, pmvp_time at)
{
    uint32_t status = 0;
    if (machine.virtconsole == Machine::CONSOLE)
        console_put(c, at);
    else if (testdev.put(c, &status))
        end_all(at, status, "chr-testdev");
}

// The console's bytes so far, by instant: every PE has run to the quantum's
// end, so no byte of an earlier instant is still to come.
void Guest::flush_console()
{
    if (!console_stream || console_pending_.empty())
        return;
    std::stable_sort(console_pending_.begin(), console_pending_.end(),
                     [](const auto &a, const auto &b) { return a.first < b.first; });
    for (const auto &[at, c] : console_pending_)
        std::fputc(c, console_stream);
    std::fflush(console_stream);
    console_pending_.clear();
}

const std::string &iss_image(const Scenario &s)
{
    for (const Cluster &c : s.clusters)
        if (c.iss())
            return c.cpu.firmware;
    throw std::logic_error("a scenario without ISS clusters has no image");
}

// The RAM as loaded: the image, and the device tree where it goes.
void Guest::load_ram(uint8_t *to) const
{
    for (const FirmwareImage::Segment &seg : image.segments)
        std::memcpy(to + (seg.address - kRamBase), seg.bytes.data(), seg.bytes.size());
    if (!initrd.empty())
        std::memcpy(to + (initrd_at - kRamBase), initrd.data(), initrd.size());
    if (dtb_at)
        std::memcpy(to + (dtb_at - kRamBase), dtb.data(), dtb.size());
}

Guest::~Guest()
{
    std::free(ram);
}

// One quantum after another, the ISS cores in the SoC's order: a guest sees
// another's stores and doorbells in an order that does not depend on the
// simulator's choice among processes (nor on a restore). A core's run ends
// when every thread of it has exited, with the scenario, or when the SoC's
// run ends early (Soc::interrupt). A restored run goes on from the
// quantum's end the process waited for at the checkpoint.
void Guest::run()
{
    const pmvp_time end = soc_.scenario.duration, quantum = soc_.scenario.quantum;
    bool go = soc_.resume_at ? pause_until(wake_) : true;
    while (go) {
        wake_ = std::min(end, time_.now() + quantum);
        // Every core to the quantum's end; again for a core whose sleeping
        // thread a later core's doorbell woke before that end (ring).
        for (bool again = true; again;) {
            for (Aarch64Iss *core : cores)
                if (!core->ended)
                    core->quantum(wake_);
            again = std::any_of(cores.begin(), cores.end(),
                                [&](const Aarch64Iss *c) { return !c->ended && c->behind(wake_); });
        }
        flush_console();
        auto runs_on = [&](const Aarch64Iss *c) { return c->live() && wake_ < end && !soc_.ended_early; };
        const bool running =
            std::any_of(cores.begin(), cores.end(), [&](const Aarch64Iss *c) { return !c->ended && runs_on(c); });
        // The last quantum: simulated time is brought to the last instant a
        // thread reached (an exit, the scenario's end), so that the monitors
        // make every change the threads told for up to it, and the report
        // reads the counters there, whatever the quantum.
        if (!running && !soc_.ended_early)
            (void)pause_until(last_instant());
        for (Aarch64Iss *core : cores)
            if (!core->ended && !runs_on(core)) {
                core->ended = true;
                soc_.iss_core_ended();
            }
        go = running && pause_until(wake_);
    }
    flush_console();
    for (Aarch64Iss *core : cores)
        if (!core->ended) {  // the SoC's run ended early
            core->ended = true;
            soc_.iss_core_ended();
        }
}

// A doorbell rung at `at` (the earliest instant counts while it stays
// rung). Its PE, if it slept in WFI past `at` because it ran before the
// ringing thread in this quantum, is woken at the ring's instant, or at
// its sleep's start if that came later: it slept past nothing but time.
void Guest::ring(unsigned pe, pmvp_time at)
{
    Doorbell &bell = doorbell[pe];
    bell.at = bell.rung ? std::min(bell.at, at) : at;
    bell.rung = true;
    wake(pe, bell.at);
}

void Guest::wake(unsigned pe, pmvp_time at)
{
    for (Aarch64Iss *core : cores)
        for (Aarch64Iss::Thread &t : core->threads)
            if (t.image_pe == pe && t.wfi && !t.exited && t.now > at)
                t.now = std::max(at, t.slept_from);
}

void Guest::end_all(pmvp_time at, uint32_t status, const std::string &by)
{
    if (!ended) {
        ended = true;
        end_status = status;
    }
    for (Aarch64Iss *core : cores)
        for (Aarch64Iss::Thread &t : core->threads) {
            if (t.exited)
                continue;
            t.exited = t.result.exited = true;
            t.result.status = status;
            t.result.exit_time = at;
            t.result.exit_instructions = t.reported;
            t.result.ended_by = by;
            core->stop(t);
        }
}

// The latest instant a thread of the quantum reached, at most its end.
pmvp_time Guest::last_instant() const
{
    pmvp_time last = time_.now();
    for (const Aarch64Iss *core : cores)
        for (const Aarch64Iss::Thread &t : core->threads)
            last = std::max(last, std::min(t.now, wake_));
    return last;
}

// Waits for instant t (or the end of the SoC's run); false if the run ended.
bool Guest::pause_until(pmvp_time t)
{
    wait(time_.to_sc(t - time_.now()), soc_.end_event());
    return !soc_.ended_early;
}

}  // namespace pmvp::soc
