// SPDX-License-Identifier: Apache-2.0
//
// The PMU and AMU frames: a guest's load or store of them, a TLM access
// through the SoC's bus at its instruction's instant.

#include "aarch64_iss.h"

namespace pmvp::soc {

// Whether a load at `address` reads PMU.PMCCNTR_EL0 (or a half of it) in
// the frame of one of this core's PEs, which cycle_reads_first may read
// before the instructions before it are told, as it lets an MRS.
bool Aarch64Iss::reads_own_pmccntr(uint64_t address) const
{
    const uint64_t first = kFramesBase + threads.front().g * kPeWindow;
    if (!monitors_ || address < first || address >= first + threads.size() * kPeWindow)
        return false;
    const uint32_t in_frame = (uint32_t)((address - first) % kPeWindow);  // the PMU frame leads the window
    return in_frame == pmccntr_ || in_frame == pmccntr_ + 4;
}

namespace {

// One access of a frame: at its instruction's instant, after the
// instructions before it (a read of the PE's own PMCCNTR_EL0 may come
// first: cycle_reads_first), one beat on the platform's bus (BUS_ACCESS,
// told with its instruction's events), one TLM access. An error response
// reads as zero and loses a write. The data read.
uint64_t frame_access(Aarch64Iss::Thread &t, uint64_t address, unsigned size, bool write, uint64_t data)
{
    Aarch64Iss &iss = *t.iss;
    const uint64_t before = iss.retired_before_access(t);
    if (!(t.cycle_reads_first && !write && iss.reads_own_pmccntr(address)))
        iss.tell_retired(t, before);
    iss.occur(t, a64::BUS_ACCESS);
    iss.occur(t, write ? a64::BUS_ACCESS_WR : a64::BUS_ACCESS_RD);
    tlm::tlm_generic_payload &gp = iss.frame_gp;  // one for every access: no construction each time
    gp.set_command(write ? tlm::TLM_WRITE_COMMAND : tlm::TLM_READ_COMMAND);
    gp.set_address(address);
    gp.set_data_ptr(reinterpret_cast<unsigned char *>(&data));
    gp.set_data_length(size);
    gp.set_streaming_width(size);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    sc_time delay = iss.offset(iss.time_of(t, before));
    if (iss.monitors_)
        iss.guest_.bus->b_transport(gp, delay);
    if (gp.get_response_status() != tlm::TLM_OK_RESPONSE) {
        t.result.bus_errors++;
        data = 0;
    }
    if (write)
        iss.stop(t);  // the monitors changed: limits anew
    return data;
}

uint64_t on_frame_read(uc_engine *, uint64_t offset, unsigned size, void *user)
{
    return frame_access(*static_cast<Aarch64Iss::Thread *>(user), kFramesBase + offset, size, false, 0);
}

void on_frame_write(uc_engine *, uint64_t offset, unsigned size, uint64_t value, void *user)
{
    frame_access(*static_cast<Aarch64Iss::Thread *>(user), kFramesBase + offset, size, true, value);
}

}  // namespace

// Unicorn's MMIO regions take accesses of up to 4 bytes: a 64-bit load or
// store arrives as two 32-bit ones, its low half first, at the same
// instant, and is made as two TLM accesses (the register reads as one
// 64-bit access at that instant would read it). Memory hooks, which would
// keep it one access, send every load and store of the guest through
// Unicorn's slow path (docs/FIRMWARE.md, "Unicorn").
void map_frames(Aarch64Iss::Thread &t)
{
    unicorn_ok(uc_mmio_map(t.uc, kFramesBase, t.iss->guest_.frames_size, on_frame_read, &t, on_frame_write, &t),
               "map the frames");
}

}  // namespace pmvp::soc
